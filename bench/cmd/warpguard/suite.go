package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// suite is `warpguard suite`: every kernel clean and with each injection,
// with detection off and on, one row each.
func suite(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("suite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "default", "input size: default or paper")
	asJSON := fs.Bool("json", false, "print one JSON object per configuration")
	glob := fs.String("kernels", "", "run only the kernels whose names match this path.Match pattern")
	seed := fs.Int64("seed", 1, "input generator seed")
	attempts := fs.Int("attempts", 3, "runs of an injected configuration, at most, until its race is reported")
	ex := addExecutor(fs)
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "warpguard suite: unexpected arguments %q\n", fs.Args())
		return exitError
	}
	sz, err := kernels.ParseSize(*size)
	var cat kernels.Catalog
	if err == nil {
		cat, err = kernels.All().Match(*glob)
	}
	if err == nil && len(cat) == 0 {
		err = fmt.Errorf("no kernel matches %q", *glob)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	start := time.Now()
	cfgs := bench.Configs(cat, sz, *seed)
	for i := range cfgs {
		cfgs[i].Executor, cfgs[i].Attempts = ex.Executor, *attempts
	}
	results := runSuite(cfgs, stderr)
	if *asJSON {
		err = writeJSON(stdout, results)
	} else {
		err = writeTable(stdout, results)
	}
	if err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	t := tally(results)
	fmt.Fprintf(stderr, "%s in %v\n", t, time.Since(start).Round(time.Millisecond))
	if t.ok < t.configs {
		return exitError
	}
	return exitOK
}

// runSuite evaluates each configuration in turn, one progress line each on
// progress. They run one at a time so that their timings do not compete.
func runSuite(cfgs []bench.Config, progress io.Writer) []bench.Result {
	out := make([]bench.Result, 0, len(cfgs))
	for i, c := range cfgs {
		r := bench.Evaluate(context.Background(), c)
		verdict := "ok"
		if !r.OK() {
			verdict = "FAIL: " + r.Problem()
		}
		fmt.Fprintf(progress, "[%d/%d] %s %s: %s\n", i+1, len(cfgs), c.Kernel.Name, c.Inject, verdict)
		out = append(out, r)
	}
	return out
}

func writeTable(w io.Writer, results []bench.Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tINJECTION\tEXPECT\tREPORTED\tFP\tMISSED\tOUTPUT\tOFF\tON\tOVERHEAD\tOK")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%v\t%v\t%.1fx\t%s\n",
			r.Kernel, dash(r.Inject), kindList(r.Expect), kindList(r.Found()), r.FalsePositives, r.Missed(),
			outputWord(&r), round(r.Off.Elapsed), round(r.On.Elapsed), r.Overhead(), okWord(&r))
	}
	return tw.Flush()
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
	}
	return "ok"
}

func okWord(r *bench.Result) string {
	if r.OK() {
		return "ok"
	}
	return "FAIL"
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
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

func writeJSON(w io.Writer, results []bench.Result) error {
	enc := json.NewEncoder(w)
	for _, r := range results {
		o := resultOut{
			Kernel: r.Kernel, Inject: r.Inject, ExpectRaces: kindStrings(r.Expect), FoundRaces: kindStrings(r.Found()),
			Reports: len(r.On.Reports), Matched: r.Matched, FalsePositives: r.FalsePositives, Missed: r.Missed(),
			OutputOK: r.OutputOK(), OK: r.OK(), OffNS: r.Off.Elapsed.Nanoseconds(), OnNS: r.On.Elapsed.Nanoseconds(),
			Overhead: r.Overhead(), Attempts: r.Attempts, Problem: r.Problem(), RaceReports: r.On.Reports,
		}
		if o.RaceReports == nil {
			o.RaceReports = []race.Report{}
		}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
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
