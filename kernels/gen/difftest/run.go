package difftest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/gen"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/oracle"
)

// An Outcome is one kernel's verdicts under one configuration.
type Outcome struct {
	Config   string      // the detector configuration's name (race.Config)
	Kernel   *gen.Kernel // the kernel launched
	Schedule uint64      // the seed of the launch's random schedule
	// Execution is how the launch ran: deterministically or in parallel.
	Execution Execution
	Races     []oracle.Race // the oracle's, one per racing granule
	// Reported are the granules the detector reported; FalsePositives
	// those the oracle finds clean and FalseNegatives those it missed.
	Reported, FalsePositives, FalseNegatives []oracle.Granule
}

// Agree reports whether the detector and the oracle found the same
// racing granules.
func (o *Outcome) Agree() bool { return len(o.FalsePositives) == 0 && len(o.FalseNegatives) == 0 }

// Run launches k once deterministically under the schedule seed, watched
// by a detector of the named configuration and by the oracle, and
// compares their verdicts. It fails if the configuration is unknown or
// the launch fails.
func Run(ctx context.Context, k *gen.Kernel, schedule uint64, config string) (*Outcome, error) {
	return RunUnder(ctx, k, schedule, config, Deterministic)
}

// RunUnder is Run under execution e: deterministically, or in parallel
// under one of the runtime's executors, where the interleaving is the
// machine's and the schedule seed only shuffles the order blocks start
// in. The oracle judges the execution that actually happened.
func RunUnder(ctx context.Context, k *gen.Kernel, schedule uint64, config string, e Execution) (*Outcome, error) {
	opt, err := race.Config(config)
	if err != nil {
		return nil, err
	}
	det, tr, err := launch(ctx, k, e.config(schedule), opt)
	if err != nil {
		return nil, fmt.Errorf("difftest: kernel %d, schedule %d, %v: %w", k.Seed, schedule, e, err)
	}
	o := &Outcome{Config: config, Kernel: k, Schedule: schedule, Execution: e, Races: oracle.Analyze(tr).Races, Reported: reported(det)}
	o.compare()
	return o, nil
}

// launch runs k once on a fresh device with cfg, recorded and, unless opt
// is Off, watched by a detector with opt that keeps every report. It
// returns the detector (nil when Off) and the trace.
func launch(ctx context.Context, k *gen.Kernel, cfg gpu.LaunchConfig, opt race.Options) (*race.Detector, *oracle.Trace, error) {
	rec := oracle.NewRecorder()
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	var det *race.Detector
	if !opt.Off {
		opt.MaxReports, opt.HaltOnFirst = 1<<30, false
		det = race.New(opt)
		cfg.Observer = det
	}
	ctx, cancel := context.WithTimeout(ctx, gen.Timeout) // a safety net: generated kernels terminate
	defer cancel()
	if err := k.Launch(ctx, d, cfg); err != nil {
		return nil, nil, err
	}
	return det, rec.Traces()[0], nil
}

// reported returns the granules det reported, in order, once each.
func reported(det *race.Detector) []oracle.Granule {
	if det == nil {
		return nil
	}
	var gs []oracle.Granule
	for _, r := range det.Reports() {
		gs = append(gs, granules(r)...)
	}
	slices.SortFunc(gs, oracle.Granule.Compare)
	return slices.CompactFunc(gs, func(a, b oracle.Granule) bool { return a.Compare(b) == 0 })
}

// granules returns the 4-byte granules that the element of report r
// overlaps: one for an element of 4 bytes or fewer, more for a wider one.
func granules(r race.Report) []oracle.Granule {
	size := r.Mem.ElemSize
	first, last := r.Index*size/4, ((r.Index+1)*size-1)/4
	gs := make([]oracle.Granule, 0, last-first+1)
	for g := first; g <= last; g++ {
		gs = append(gs, oracle.Granule{Mem: r.Mem, Index: g})
	}
	return gs
}

// compare fills the false positives and negatives, walking both sorted
// lists of granules.
func (o *Outcome) compare() {
	want := make([]oracle.Granule, len(o.Races))
	for i, r := range o.Races {
		want[i] = r.Granule
	}
	slices.SortFunc(want, oracle.Granule.Compare)
	got := o.Reported
	for len(got) > 0 || len(want) > 0 {
		switch c := order(got, want); {
		case c < 0:
			o.FalsePositives, got = append(o.FalsePositives, got[0]), got[1:]
		case c > 0:
			o.FalseNegatives, want = append(o.FalseNegatives, want[0]), want[1:]
		default:
			got, want = got[1:], want[1:]
		}
	}
}

// order compares the heads of two sorted lists, an empty list last.
func order(a, b []oracle.Granule) int {
	switch {
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	return a[0].Compare(b[0])
}

// String describes the outcome for a failing test: the seeds, the kernel,
// the differences and the oracle's races.
func (o *Outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "config %s, kernel seed %d, schedule seed %d, %v\n%s", o.Config, o.Kernel.Seed, o.Schedule, o.Execution, o.Kernel)
	fmt.Fprintf(&b, "false positives: %s\nfalse negatives: %s\noracle:\n", names(o.FalsePositives), names(o.FalseNegatives))
	for _, r := range o.Races {
		fmt.Fprintf(&b, "  %s: %v\n", gen.WordName(r.Granule.Mem, r.Granule.Index), r)
	}
	return b.String()
}

// names lists granules by the kernel's word names.
func names(gs []oracle.Granule) string {
	if len(gs) == 0 {
		return "none"
	}
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = gen.WordName(g.Mem, g.Index)
	}
	return strings.Join(s, ", ")
}

// ScheduleSeed derives the schedule seed for the kernel of seed s, so that
// one seed reproduces both kernel and interleaving.
func ScheduleSeed(s uint64) uint64 { return s*0x9e3779b97f4a7c15 + 1 }
