package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// runOne is `warpguard run`: one configuration, its output check and its
// race reports.
func runOne(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("run", "KERNEL [flags]", runDoc, stderr)
	inject := fs.String("inject", "", "switch on the named injected race")
	size := fs.String("size", "default", "input size: default or paper")
	detector := fs.String("detector", "on", "race detection: on or off")
	seed := fs.Int64("seed", 1, "input generator seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	config := fs.String("config", "exact", "detector configuration, as bench -configs names them (see race.Config): exact, the default, or a configuration of the iguard family (opt, plain, ...)")
	ex := addExecutor(fs.FlagSet)
	name, code, ok := parseWithName(fs, args, stdout)
	if !ok {
		return code
	}
	k, ok := lookupKernel(name)
	if !ok {
		return fs.usageError(fmt.Errorf("no kernel %q (see warpguard list)", name))
	}
	env, err := envOf(fs)
	sz, serr := kernels.ParseSize(*size)
	if err == nil {
		err = serr
	}
	if err == nil && *detector != "on" && *detector != "off" {
		err = fmt.Errorf("-detector %q: want on or off", *detector)
	}
	if err == nil && *inject != "" {
		if _, ok := k.Injection(*inject); !ok {
			err = fmt.Errorf("%s has no injection %q (see warpguard list)", k.Name, *inject)
		}
	}
	var opt race.Options
	if err == nil {
		opt, err = detectorConfig(*config)
	}
	if err != nil {
		return fs.usageError(err)
	}
	c := bench.Case{Kernel: k, Inject: *inject, Size: sz, Seed: *seed, Executor: ex.Executor, Family: familyOf(env.Apply(opt))}
	var det bench.Detector
	if *detector == "on" {
		det = detectorOf(env, opt)()
	}
	r := bench.Once(context.Background(), c, det)
	if *asJSON {
		err = json.NewEncoder(stdout).Encode(runJSON(c, *detector, r))
	} else {
		printRun(stripped{stdout, env}, c, *detector, r)
	}
	if err == nil {
		err = env.Log(r.Reports)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	return runExit(r)
}

// runDoc is run's help paragraph.
const runDoc = "Run runs one configuration of a kernel (see warpguard list) and prints its output " +
	"check and every race report, each naming both sides' threads as (x,y,z) block and thread " +
	"coordinates and file:line. The exit code is 0 when the output is right and no race was " +
	"reported, 66 when races were reported (as Go's race detector exits), 1 when the launch " +
	"failed or the output is wrong with no race to explain it, and 2 for a command line that " +
	"does not parse. The WARPGUARD environment variable configures the detector as " +
	"GORACE configures Go's (halt_on_error, max_reports, history, family, granularity, log_path, " +
	"strip_path_prefix; see package racetest); a -config given on the command line wins over " +
	"its family."

// parseWithName parses flags that may come before or after one
// positional kernel name. When ok is false the command returns code.
func parseWithName(c *command, args []string, stdout io.Writer) (name string, code int, ok bool) {
	if code, ok := c.parse(args, stdout); !ok {
		return "", code, false
	}
	if c.NArg() == 0 {
		return "", c.usageError(errors.New("missing KERNEL")), false
	}
	name = c.Arg(0)
	if code, ok := c.parse(c.Args()[1:], stdout); !ok {
		return "", code, false
	}
	if err := c.noArgs(); err != nil {
		return "", c.usageError(err), false
	}
	return name, exitOK, true
}

// runExit is run's exit code: an error first, then races, then a wrong
// output no race explains.
func runExit(r bench.Outcome) int {
	switch {
	case r.LaunchErr != nil:
		return exitError
	case len(r.Reports) > 0:
		return exitRaces
	case r.CheckErr != nil:
		return exitError
	}
	return exitOK
}

func printRun(w io.Writer, c bench.Case, detector string, r bench.Outcome) {
	inj := c.Inject
	if inj == "" {
		inj = "none"
	}
	fmt.Fprintf(w, "kernel %s, injection %s, size %v, seed %d, detector %s: %v\n", c.Kernel.Name, inj, c.Size, c.Seed, detector, bench.FormatDuration(r.Elapsed))
	switch {
	case r.LaunchErr != nil:
		fmt.Fprintf(w, "launch failed: %v\n", r.LaunchErr)
	case r.CheckErr != nil:
		fmt.Fprintf(w, "output: WRONG: %v\n", r.CheckErr)
	case r.Halted:
		fmt.Fprintln(w, "output: not checked: the detector halted the launch at its first race (halt_on_error)")
	default:
		fmt.Fprintln(w, "output: ok")
	}
	for _, rep := range r.Reports {
		fmt.Fprintln(w, rep)
	}
	if detector == "on" {
		fmt.Fprintf(w, "%s reported\n", race.Count(len(r.Reports)))
	}
}

// runOut is the JSON form of a run; its reports are race.Report's own
// JSON (see race.ReportSchema).
type runOut struct {
	Kernel     string        `json:"kernel"`
	Inject     string        `json:"inject"`
	Size       string        `json:"size"`
	Seed       int64         `json:"seed"`
	Detector   string        `json:"detector"`
	OutputOK   bool          `json:"output_ok"`
	Halted     bool          `json:"halted,omitempty"` // halt_on_error stopped the launch: output not checked
	Error      string        `json:"error,omitempty"`
	ElapsedNS  int64         `json:"elapsed_ns"`
	Reports    []race.Report `json:"reports"`
	FoundRaces []string      `json:"found_races"`
}

func runJSON(c bench.Case, detector string, r bench.Outcome) runOut {
	out := runOut{Kernel: c.Kernel.Name, Inject: c.Inject, Size: c.Size.String(), Seed: c.Seed, Detector: detector,
		OutputOK: r.LaunchErr == nil && r.CheckErr == nil && !r.Halted, Halted: r.Halted, ElapsedNS: r.Elapsed.Nanoseconds(), Reports: []race.Report{}, FoundRaces: []string{}}
	if r.LaunchErr != nil {
		out.Error = r.LaunchErr.Error()
	} else if r.CheckErr != nil {
		out.Error = r.CheckErr.Error()
	}
	for _, rep := range r.Reports {
		out.Reports = append(out.Reports, rep)
		out.FoundRaces = appendKind(out.FoundRaces, rep.Kind)
	}
	return out
}

func appendKind(ks []string, k race.Kind) []string {
	for _, s := range ks {
		if s == k.String() {
			return ks
		}
	}
	return append(ks, k.String())
}
