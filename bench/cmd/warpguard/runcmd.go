package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// runOne is `warpguard run`: one configuration, its output check and its
// race reports.
func runOne(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	inject := fs.String("inject", "", "switch on the named injected race")
	size := fs.String("size", "default", "input size: default or paper")
	detector := fs.String("detector", "on", "race detection: on or off")
	seed := fs.Int64("seed", 1, "input generator seed")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ex := addExecutor(fs)
	name, err := parseWithName(fs, args)
	if err != nil {
		return exitError
	}
	k, ok := kernels.All().Lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "warpguard: no kernel %q (see warpguard list)\n", name)
		return exitError
	}
	sz, err := kernels.ParseSize(*size)
	if err == nil && *detector != "on" && *detector != "off" {
		err = fmt.Errorf("-detector %q: want on or off", *detector)
	}
	if err == nil && *inject != "" {
		if _, ok := k.Injection(*inject); !ok {
			err = fmt.Errorf("%s has no injection %q (see warpguard list)", k.Name, *inject)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	c := bench.Config{Kernel: k, Inject: *inject, Size: sz, Seed: *seed, Executor: ex.Executor}
	var det bench.Detector
	if *detector == "on" {
		det = bench.NewDetector()
	}
	r := bench.Once(context.Background(), c, det)
	if *asJSON {
		err = json.NewEncoder(stdout).Encode(runJSON(c, *detector, r))
	} else {
		printRun(stdout, c, *detector, r)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	return runExit(r)
}

// parseWithName parses flags that may come before or after one
// positional kernel name.
func parseWithName(fs *flag.FlagSet, args []string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(fs.Output(), "warpguard run: missing KERNEL")
		return "", flag.ErrHelp
	}
	name := fs.Arg(0)
	if err := fs.Parse(fs.Args()[1:]); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "warpguard run: unexpected arguments %q\n", fs.Args())
		return "", flag.ErrHelp
	}
	return name, nil
}

// runExit is run's exit code: an error first, then races, then a wrong
// output no race explains.
func runExit(r bench.Run) int {
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

func printRun(w io.Writer, c bench.Config, detector string, r bench.Run) {
	inj := c.Inject
	if inj == "" {
		inj = "none"
	}
	fmt.Fprintf(w, "kernel %s, injection %s, size %v, seed %d, detector %s: %v\n", c.Kernel.Name, inj, c.Size, c.Seed, detector, r.Elapsed)
	switch {
	case r.LaunchErr != nil:
		fmt.Fprintf(w, "launch failed: %v\n", r.LaunchErr)
	case r.CheckErr != nil:
		fmt.Fprintf(w, "output: WRONG: %v\n", r.CheckErr)
	default:
		fmt.Fprintln(w, "output: ok")
	}
	for _, rep := range r.Reports {
		fmt.Fprintln(w, rep)
	}
	if detector == "on" {
		fmt.Fprintf(w, "%d races reported\n", len(r.Reports))
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
	Error      string        `json:"error,omitempty"`
	ElapsedNS  int64         `json:"elapsed_ns"`
	Reports    []race.Report `json:"reports"`
	FoundRaces []string      `json:"found_races"`
}

func runJSON(c bench.Config, detector string, r bench.Run) runOut {
	out := runOut{Kernel: c.Kernel.Name, Inject: c.Inject, Size: c.Size.String(), Seed: c.Seed, Detector: detector,
		OutputOK: r.LaunchErr == nil && r.CheckErr == nil, ElapsedNS: r.Elapsed.Nanoseconds(), Reports: []race.Report{}, FoundRaces: []string{}}
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
