package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// suiteDoc is suite's help paragraph.
const suiteDoc = "Suite runs every kernel of the catalog clean and with each injected race, with the " +
	"detector off and on, and prints a row per configuration as it finishes: false positives, " +
	"missed races, the output check, the time off and on, and the verdict; -v adds the race kinds " +
	"expected and reported, and a failing row is followed by what failed. The last line tallies " +
	"the run. The exit code is 0 when every configuration is ok, 1 when one is not, and 2 for a " +
	"command line that does not parse. A detector sees only the interleavings that happen, so a " +
	"configuration that expects a race runs with the detector under deterministic schedules, the " +
	"default order and then random orders seeded 1, 2, ..., until one shows the race, up to " +
	"-attempts runs, and a miss names the schedules it tried; under -executor goroutines the " +
	"schedules order only blocks and thread starts, and cannot be deterministic. The " +
	"WARPGUARD environment variable configures the detector, as for run. The " +
	"large-grid group (large/..., millions of threads) runs only when -kernels names it."

// suite is `warpguard suite`: every kernel clean and with each injection,
// with detection off and on, one row each.
func suite(args []string, stdout, stderr io.Writer) int {
	c := newCommand("suite", "[flags]", suiteDoc, stderr)
	size := c.String("size", "default", "input size: default or paper")
	asJSON := c.Bool("json", false, "print one JSON object per configuration instead of the table")
	verbose := c.Bool("v", false, "add the expected and reported race kinds under each row")
	glob := c.String("kernels", "", "run "+kernelsFlagDoc)
	seed := c.Int64("seed", 1, "input generator seed")
	attempts := c.Int("attempts", kernels.ExposeBound, "runs of a configuration that expects a race, at most, each under another deterministic schedule, until the race is reported")
	config := c.String("config", "exact", "detector configuration, as bench -configs names them (see race.Config): exact, the default, or a configuration of the iguard family (opt, plain, ...)")
	ex := addExecutor(c.FlagSet)
	if code, ok := c.parse(args, stdout); !ok {
		return code
	}
	cat, sz, err := suiteCatalog(c, *glob, *size)
	env, eerr := envOf(c)
	if err == nil {
		err = eerr
	}
	var opt race.Options
	if err == nil {
		opt, err = detectorConfig(*config)
	}
	if err == nil {
		err = atLeast("attempts", *attempts, 1)
	}
	if err != nil {
		return c.usageError(err)
	}
	cfgs := bench.Configs(cat, sz, *seed)
	for i := range cfgs {
		cfgs[i].Executor, cfgs[i].Attempts = ex.Executor, *attempts
		cfgs[i].Detector, cfgs[i].Family = detectorOf(env, opt), familyOf(env.Apply(opt))
		if strings.HasPrefix(cfgs[i].Kernel.Name, largePrefix) {
			cfgs[i].Timeout = largeTimeout
		}
	}
	var out resultWriter = newSuiteTable(stdout, cfgs, *verbose)
	if *asJSON {
		out = jsonResults{json.NewEncoder(stdout)}
	}
	start := time.Now()
	results, err := runSuite(cfgs, out, progressTo(stdout, stderr, *asJSON))
	for i := 0; err == nil && i < len(results); i++ {
		err = env.Log(results[i].On.Reports)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	return finishSuite(results, time.Since(start), stdout, stderr, *asJSON)
}

// detectorConfig returns the options of the configuration called name,
// which must detect.
func detectorConfig(name string) (race.Options, error) {
	opt, err := race.Config(name)
	if err == nil && opt.Off {
		err = fmt.Errorf("-config %q detects nothing; want a detector configuration", name)
	}
	return opt, err
}

// suiteCatalog checks suite's arguments and returns the kernels and the
// size they select.
func suiteCatalog(c *command, glob, size string) (kernels.Catalog, kernels.Size, error) {
	if err := c.noArgs(); err != nil {
		return nil, 0, err
	}
	sz, err := kernels.ParseSize(size)
	if err != nil {
		return nil, 0, err
	}
	cat, err := selectKernels(kernels.All(), glob)
	return cat, sz, err
}

// finishSuite writes the tally, to stdout after a table and to stderr
// after JSON lines, and returns the exit code.
func finishSuite(results []bench.Result, elapsed time.Duration, stdout, stderr io.Writer, asJSON bool) int {
	w := stdout
	if asJSON {
		w = stderr
	}
	t := tally(results)
	fmt.Fprintf(w, "%s in %s\n", t, bench.FormatDuration(elapsed.Round(time.Millisecond)))
	if t.ok < t.configs {
		return exitError
	}
	return exitOK
}

// A resultWriter writes a suite's results as they finish.
type resultWriter interface {
	write(r *bench.Result) error
}

// runSuite evaluates each configuration in turn, writing each result to
// out and a progress line to progress, if not nil. They run one at a time
// so that their timings do not compete.
func runSuite(cfgs []bench.Case, out resultWriter, progress io.Writer) ([]bench.Result, error) {
	results := make([]bench.Result, 0, len(cfgs))
	for i, c := range cfgs {
		r := bench.Evaluate(context.Background(), c)
		if progress != nil {
			fmt.Fprintf(progress, "[%d/%d] %s %s: %s\n", i+1, len(cfgs), c.Kernel.Name, dash(c.Inject), okWord(&r))
		}
		if err := out.write(&r); err != nil {
			return results, err
		}
		results = append(results, r)
	}
	return results, nil
}

// progressTo returns where suite's progress lines go: stderr, unless the
// rows themselves go to a terminal as they finish.
func progressTo(stdout, stderr io.Writer, asJSON bool) io.Writer {
	if !asJSON && isTerminal(stdout) {
		return nil
	}
	return stderr
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func outputWord(r *bench.Result) string {
	switch {
	case !r.OutputOK():
		return "WRONG"
	case r.Off.CheckErr != nil || r.On.CheckErr != nil:
		return "spoiled" // an injection allowed to spoil it did
	case r.On.Halted:
		return "halted" // halt_on_error stopped the detected run: its output is not checked
	}
	return "ok"
}

func okWord(r *bench.Result) string {
	if r.OK() {
		return "ok"
	}
	return "FAIL"
}

// resultOut is a configuration's JSON line.
type resultOut struct {
	Kernel         string   `json:"kernel"`
	Inject         string   `json:"inject"`
	ExpectRaces    []string `json:"expect_races"`
	FoundRaces     []string `json:"found_races"`
	Reports        int      `json:"reports"`
	Matched        int      `json:"matched"`
	FalsePositives int      `json:"false_positives"`
	Missed         int      `json:"missed"`
	OutputOK       bool     `json:"output_ok"`
	OK             bool     `json:"ok"`
	OffNS          int64    `json:"off_ns"`
	OnNS           int64    `json:"on_ns"`
	Overhead       float64  `json:"overhead"`
	Attempts       int      `json:"attempts"`
	Problem        string   `json:"problem,omitempty"`
	// RaceReports are the detector's reports, in race.Report's own JSON
	// (see race.ReportSchema).
	RaceReports []race.Report `json:"race_reports"`
}

// jsonResults writes each result as a JSON line.
type jsonResults struct{ enc *json.Encoder }

func (j jsonResults) write(r *bench.Result) error {
	o := resultOut{
		Kernel: r.Kernel, Inject: r.Inject, ExpectRaces: kindStrings(r.Expect), FoundRaces: kindStrings(r.Found()),
		Reports: len(r.On.Reports), Matched: r.Matched, FalsePositives: r.FalsePositives, Missed: r.Missed(),
		OutputOK: r.OutputOK(), OK: r.OK(), OffNS: r.Off.Elapsed.Nanoseconds(), OnNS: r.On.Elapsed.Nanoseconds(),
		Overhead: r.Overhead(), Attempts: r.Attempts, Problem: r.Problem(), RaceReports: r.On.Reports,
	}
	if o.RaceReports == nil {
		o.RaceReports = []race.Report{}
	}
	return j.enc.Encode(o)
}

// totals summarizes a suite run.
type totals struct {
	configs, ok         int
	microOK, micros     int // microbenchmark verdicts right / total
	appFound, appExpect int // injected races found / expected outside the microbenchmarks
	falsePositives      int
}

func tally(results []bench.Result) totals {
	var t totals
	for _, r := range results {
		t.configs++
		if r.OK() {
			t.ok++
		}
		t.falsePositives += r.FalsePositives
		switch {
		case strings.HasPrefix(r.Kernel, "micro/"):
			t.micros++
			if r.OK() {
				t.microOK++
			}
		case r.Inject != "":
			t.appExpect++
			if r.Missed() == 0 {
				t.appFound++
			}
		}
	}
	return t
}

func (t totals) String() string {
	return fmt.Sprintf("%d/%d configurations ok; microbenchmark verdicts %d/%d; injected races found %d/%d; false positives %d",
		t.ok, t.configs, t.microOK, t.micros, t.appFound, t.appExpect, t.falsePositives)
}
