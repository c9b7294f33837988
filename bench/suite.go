// Package bench runs catalog kernels with and without race detection and
// judges the outcome: is the output right, did the detector report the
// injected race at the injected code, and nothing on clean code, and what
// did detection cost. The warpguard command is a front end to it.
package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// A Detector is a race detector the harness can run: a gpu.Observer that
// collects reports.
type Detector interface {
	gpu.Observer
	Reports() []race.Report
}

// NewDetector returns the default detector: package race's, with history
// on so that every report names both sites.
func NewDetector() Detector { return race.New(race.Options{History: true}) }

// NewDetectorFor returns package race's detector configured by opt, with
// history on so that every report names both sites.
func NewDetectorFor(opt race.Options) func() Detector {
	opt.History = true
	return func() Detector { return race.New(opt) }
}

// A Case is one configuration of one kernel: which kernel, which injection,
// size, seed and executor, and which detector judges it.
type Case struct {
	Kernel   *kernels.Entry
	Inject   string // an injection's name, or "" for the clean kernel
	Size     kernels.Size
	Seed     int64
	Executor gpu.Executor
	// Detector makes the detector for the run with detection on; nil
	// means NewDetector.
	Detector func() Detector
	// Family is the detector family whose expected verdicts judge the
	// run (kernels.Entry.ExpectedIn: an injection's Precise verdict is
	// the Exact family's), and that checks it when Detector is nil:
	// race.Exact, the default, or race.IGUARD.
	Family race.Family
	// Timeout bounds each run; 0 means one minute at the default size and
	// ten at the paper size.
	Timeout time.Duration
	// Attempts bounds the runs with detection on of a configuration that
	// expects a race: a detector sees only the interleavings that happen,
	// so they search schedules (kernels.Expose), deterministic ones under
	// the Fibers executor, until one shows the race, up to Attempts runs
	// in all; 0 means kernels.ExposeBound. A configuration that expects
	// no race runs once, under the executor's own schedule.
	Attempts int

	trial *kernels.Trial // the schedule of a run of Evaluate's search; nil for the executor's own
}

// A Outcome is the outcome of running one configuration once.
type Outcome struct {
	Elapsed   time.Duration // the launches alone, not the input setup
	Allocated uint64        // bytes the process allocated during the launches (see allocated)
	LaunchErr error
	CheckErr  error
	Reports   []race.Report // nil when detection was off
	// Halted is set when the detector stopped the launch at its first race
	// (Options.HaltOnFirst, WARPGUARD's halt_on_error): the race is among
	// Reports, LaunchErr holds only the launch's other errors, and the
	// output, cut short, is not checked.
	Halted bool
}

// Err returns the launch error, or else the output check's, prefixed
// "output: ", or nil if the run launched and computed the right output.
func (o Outcome) Err() error {
	switch {
	case o.LaunchErr != nil:
		return o.LaunchErr
	case o.CheckErr != nil:
		return fmt.Errorf("output: %w", o.CheckErr)
	}
	return nil
}

// Once runs c once, with the detector det (nil for none).
func Once(ctx context.Context, c Case, det Detector) Outcome {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	if err != nil {
		return Outcome{LaunchErr: err}
	}
	r, err := c.Kernel.Prepare(d, kernels.Params{Size: c.Size, Seed: c.Seed, Inject: c.Inject})
	if err != nil {
		return Outcome{LaunchErr: err}
	}
	timeout := c.Timeout
	switch {
	case timeout > 0:
	case c.Size == kernels.Paper:
		timeout = 10 * time.Minute
	default:
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var obs gpu.Observer
	if det != nil {
		obs = det
	}
	start, alloc0 := time.Now(), allocated()
	launchErr := r.Launch(ctx, func(ctx context.Context, cfg gpu.LaunchConfig, k gpu.Kernel) error {
		cfg.Executor, cfg.Observer = c.Executor, obs
		if c.trial != nil {
			c.trial.Apply(&cfg)
		}
		return d.Launch(ctx, cfg, k)
	})
	out := Outcome{Elapsed: time.Since(start), LaunchErr: race.WithoutHalt(launchErr)}
	var h *race.Halt
	out.Halted = errors.As(launchErr, &h)
	out.Allocated = allocated() - alloc0
	if launchErr == nil {
		out.CheckErr = r.Check()
	}
	if det != nil {
		out.Reports = det.Reports()
	}
	return out
}

// A Result judges one configuration, run once with detection off and once
// with it on.
type Result struct {
	Kernel, Inject string
	Expect         []race.Kind // kinds the detector must report; none for a clean kernel
	Where          string      // the function holding the injected code; "" for the whole kernel
	Corrupts       bool        // the injection may spoil the output (see kernels.Injection)
	Off, On        Outcome
	// Matched counts the reports of an expected kind with a site in the
	// injected code, in the last run with detection on; FalsePositives
	// every other report, summed over all attempts, so that a retry after
	// a missed race cannot hide a schedule-dependent false alarm.
	Matched, FalsePositives int
	Attempts                int // runs with detection on
	// Trials are the schedules of the runs with detection on of a
	// configuration that expects a race, in order; the last decided.
	Trials []kernels.Trial
}

// Evaluate runs c with detection off and on and judges the result. A
// configuration that expects a race runs with detection on under the
// schedules of kernels.Expose until one shows the race, a launch fails,
// or c.Attempts runs have; the result is the last run's.
func Evaluate(ctx context.Context, c Case) Result {
	res := newResult(c)
	newDet := c.Detector
	if newDet == nil {
		newDet = NewDetectorFor(race.Options{Family: c.Family})
	}
	res.Off = Once(ctx, c, nil)
	if len(res.Expect) == 0 {
		res.On, res.Attempts = Once(ctx, c, newDet()), 1
		res.judge()
		return res
	}
	res.Trials, _, _ = kernels.Expose(c.Attempts, func(tr kernels.Trial) (bool, error) {
		c.trial = &tr
		res.On = Once(ctx, c, newDet())
		res.judge()
		return res.Missed() == 0, res.On.LaunchErr
	})
	res.Attempts = len(res.Trials)
	return res
}

// newResult returns c's result before any run: what it expects, and
// where.
func newResult(c Case) Result {
	res := Result{Kernel: c.Kernel.Name, Inject: c.Inject, Expect: c.Kernel.ExpectedIn(c.Inject, c.Family == race.Exact)}
	if in, ok := c.Kernel.Injection(c.Inject); ok {
		res.Where, res.Corrupts = in.Where, in.Corrupts
		if c.Family == race.Exact && in.Precise != nil && in.Precise.Where != "" {
			res.Where = in.Precise.Where
		}
	}
	return res
}

// judge sorts the reports of the latest run with detection on, adding its
// false positives to those of earlier attempts.
func (res *Result) judge() {
	res.Matched = 0
	for _, r := range res.On.Reports {
		if res.attributable(r) {
			res.Matched++
		} else {
			res.FalsePositives++
		}
	}
}

// attributable reports whether r is the expected race: of an expected kind
// and with one of its sites in the injected code.
func (res *Result) attributable(r race.Report) bool {
	if !slices.Contains(res.Expect, r.Kind) {
		return false
	}
	return res.Where == "" || inFunc(r.Current.Site, res.Where) || inFunc(r.Previous.Site, res.Where)
}

func inFunc(s gpu.Site, where string) bool { return strings.HasSuffix(s.Function(), where) }

// Missed returns 1 if a race was expected and none was reported at the
// injected code, else 0.
func (res *Result) Missed() int {
	if len(res.Expect) > 0 && res.Matched == 0 {
		return 1
	}
	return 0
}

// OutputOK reports whether both runs launched and computed the right
// output. For an injection that may spoil the output only the launches
// must succeed.
func (res *Result) OutputOK() bool {
	if res.Off.LaunchErr != nil || res.On.LaunchErr != nil {
		return false
	}
	return res.Corrupts || res.Off.CheckErr == nil && res.On.CheckErr == nil
}

// OK reports whether the configuration passed: the output is right, the
// expected race was reported at the injected code, and nothing else was.
func (res *Result) OK() bool {
	return res.OutputOK() && res.Missed() == 0 && res.FalsePositives == 0
}

// Found returns the distinct kinds reported, in Kind order.
func (res *Result) Found() []race.Kind {
	var ks []race.Kind
	for _, r := range res.On.Reports {
		if !slices.Contains(ks, r.Kind) {
			ks = append(ks, r.Kind)
		}
	}
	slices.Sort(ks)
	return ks
}

// Overhead returns the run time with detection on over that with it off.
func (res *Result) Overhead() float64 {
	if res.Off.Elapsed <= 0 {
		return 0
	}
	return float64(res.On.Elapsed) / float64(res.Off.Elapsed)
}

// Problem describes why the configuration is not OK, or returns "".
func (res *Result) Problem() string {
	var p []string
	for _, r := range []Outcome{res.Off, res.On} {
		if r.LaunchErr != nil {
			p = append(p, "launch: "+r.LaunchErr.Error())
		} else if r.CheckErr != nil && !res.Corrupts {
			p = append(p, "output: "+r.CheckErr.Error())
		}
	}
	if res.Missed() > 0 {
		p = append(p, fmt.Sprintf("no %v race reported in %s under the schedules %s", res.Expect, orKernel(res.Where), kernels.TrialsString(res.Trials)))
	}
	if res.FalsePositives > 0 {
		p = append(p, fmt.Sprintf("%d unexpected reports", res.FalsePositives))
	}
	return strings.Join(p, "; ")
}

func orKernel(where string) string {
	if where == "" {
		return "the kernel"
	}
	return where
}

// Configs returns every configuration of the suite for the kernels of c:
// each kernel clean, then with each of its injections.
func Configs(c kernels.Catalog, size kernels.Size, seed int64) []Case {
	var out []Case
	for _, k := range c {
		out = append(out, Case{Kernel: k, Size: size, Seed: seed})
		for _, in := range k.Injections {
			out = append(out, Case{Kernel: k, Inject: in.Name, Size: size, Seed: seed})
		}
	}
	return out
}
