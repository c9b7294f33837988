package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warpguard/warpguard/kernels/gen"
	"github.com/warpguard/warpguard/kernels/gen/difftest"
	"github.com/warpguard/warpguard/race"
)

// fuzzDoc is fuzz's help paragraph.
const fuzzDoc = "Fuzz generates -n random kernels (package kernels/gen: 1-3 blocks of up to 64 threads " +
	"mixing weak and scoped accesses, fences, locks, barriers and message passing), runs each once " +
	"under a seeded deterministic schedule (or, with -executor fibers or goroutines, in parallel on " +
	"GOMAXPROCS processors, where the oracle judges the interleaving that happened) watched by a detector of each configuration listed and by " +
	"the oracle of package race/oracle, which decides races by the scoped happens-before definition, " +
	"and prints per configuration the false positives and false negatives against the oracle, in " +
	"4-byte granules and in kernels. Kernel i is generated from seed -seed+i. Progress goes to stderr; " +
	"-v prints every kernel on which a configuration disagrees, with its seeds, and -json prints one " +
	"JSON object per configuration. It exits 0 whatever the counts: it measures."

// fuzzOptions are fuzz's flags, checked.
type fuzzOptions struct {
	n       int
	seed    uint64
	configs []string
	verbose bool
	exec    difftest.Execution
}

// fuzzCmd is `warpguard fuzz`: generated kernels under detector
// configurations, judged against the oracle.
func fuzzCmd(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("fuzz", "[-n N] [-configs LIST] [-executor E] [-seed N] [-v] [-json]", fuzzDoc, stderr)
	n := fs.Int("n", 1000, "kernels to generate")
	configs := fs.String("configs", "exact", "comma-separated detector configurations (see race.Config)")
	seed := fs.Uint64("seed", 0, "seed of the first kernel")
	executor := fs.String("executor", "deterministic", "how each kernel runs: deterministic, fibers or goroutines")
	verbose := fs.Bool("v", false, "print each kernel on which a configuration disagrees with the oracle")
	asJSON := fs.Bool("json", false, "print one JSON object per configuration")
	if code, ok := fs.parse(args, stdout); !ok {
		return code
	}
	o, err := checkFuzz(fs, *n, *seed, *configs, *verbose)
	if err == nil {
		if o.exec, err = difftest.ParseExecution(*executor); err != nil {
			err = fmt.Errorf("-executor %q: want deterministic, fibers or goroutines", *executor)
		}
	}
	if err != nil {
		return fs.usageError(err)
	}
	tallies, err := fuzz(o, stdout, stderr)
	if err == nil {
		err = writeTallies(stdout, tallies, *asJSON)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard fuzz:", err)
		return exitError
	}
	return exitOK
}

// writeTallies writes the tallies as JSON lines or as a table.
func writeTallies(w io.Writer, tallies []*difftest.Tally, asJSON bool) error {
	if asJSON {
		return writeJSONLines(w, tallies)
	}
	return writeFuzzTable(w, tallies)
}

// checkFuzz checks fuzz's flags.
func checkFuzz(fs *command, n int, seed uint64, configs string, verbose bool) (fuzzOptions, error) {
	o := fuzzOptions{n: n, seed: seed, verbose: verbose}
	if err := fs.noArgs(); err != nil {
		return o, err
	}
	if n < 1 {
		return o, fmt.Errorf("-n %d: want at least one kernel", n)
	}
	var err error
	o.configs, err = parseConfigs(configs)
	return o, err
}

// parseConfigs splits a comma-separated list of configuration names,
// checking each with race.Config.
func parseConfigs(list string) ([]string, error) {
	var configs []string
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if _, err := race.Config(c); err != nil {
			return nil, err
		}
		configs = append(configs, c)
	}
	return configs, nil
}

// fuzz runs o's kernels under o's configurations and returns a tally per
// configuration. Disagreements go to stdout with -v; progress, about once
// a second, to stderr.
func fuzz(o fuzzOptions, stdout, stderr io.Writer) ([]*difftest.Tally, error) {
	tallies := newTallies(o.configs, o.exec)
	start, shown := time.Now(), time.Now()
	for i := range o.n {
		if err := fuzzOne(o, o.seed+uint64(i), tallies, stdout); err != nil {
			return nil, err
		}
		if time.Since(shown) >= time.Second || i == o.n-1 {
			shown = time.Now()
			progress(stderr, i+1, o.n, time.Since(start))
		}
	}
	return tallies, nil
}

// newTallies returns an empty tally per configuration.
func newTallies(configs []string, e difftest.Execution) []*difftest.Tally {
	tallies := make([]*difftest.Tally, len(configs))
	for i, c := range configs {
		tallies[i] = &difftest.Tally{Config: c, Execution: e.String()}
	}
	return tallies
}

// fuzzOne runs the kernel of seed s under each configuration, adding to
// its tally.
func fuzzOne(o fuzzOptions, s uint64, tallies []*difftest.Tally, stdout io.Writer) error {
	k := gen.Generate(s)
	for j, c := range o.configs {
		out, err := difftest.RunUnder(context.Background(), k, difftest.ScheduleSeed(s), c, o.exec)
		if err != nil {
			return err
		}
		tallies[j].Add(out)
		if o.verbose && !out.Agree() {
			fmt.Fprintln(stdout, out)
		}
	}
	return nil
}

// progress writes one progress line: kernels done and the time left.
func progress(w io.Writer, done, n int, took time.Duration) {
	left := time.Duration(float64(took) / float64(done) * float64(n-done))
	fmt.Fprintf(w, "fuzz: %d/%d kernels, %v, %v left\n", done, n, took.Round(time.Second), left.Round(time.Second))
}

// writeJSONLines writes each tally as one line of JSON.
func writeJSONLines(w io.Writer, tallies []*difftest.Tally) error {
	enc := json.NewEncoder(w)
	for _, t := range tallies {
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	return nil
}

// writeFuzzTable writes one row per configuration: kernels, those the
// oracle finds racy, racing granules, and the false positives and
// negatives in granules and kernels.
func writeFuzzTable(w io.Writer, tallies []*difftest.Tally) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "CONFIG\tEXECUTOR\tKERNELS\tRACY\tGRANULES\tFP GRANULES\tFN GRANULES\tFP KERNELS\tFN KERNELS\t")
	for _, t := range tallies {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Config, t.Execution, t.Kernels, t.Racy, t.Granules,
			t.FalsePositives, t.FalseNegatives, t.FPKernels, t.FNKernels)
	}
	return tw.Flush()
}
