package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// A Matrix describes a benchmark of kernels × detector configurations.
type Matrix struct {
	Kernels kernels.Catalog
	// Configs names the detector configurations (race.Configs); nil means
	// all of them.
	Configs []string
	Runs    int // timed runs of each cell; 0 means 5
	Warmup  int // untimed runs of each cell first; 0 means 1, <0 none
	// Prime, if positive, is how long the first kernel runs untimed, under
	// every configuration in turn, before anything is measured. A virtual
	// machine may run a fresh process slower for its first moments and
	// then drop to a steady speed in one step: unprimed, the first kernels
	// of a matrix would be measured on a slower machine than the rest
	// (docs/tuning-record.md has the measurements).
	Prime time.Duration
	// MinTime is the least launch time of one run: a run repeats the
	// launch, with fresh input each time, until its launches add up to
	// MinTime, and its time is their mean. 0 means 1 ms; a negative
	// MinTime makes a run one launch. A micro kernel's launch costs about
	// what a goroutine wake-up costs, so a single launch would measure the
	// scheduler rather than the kernel.
	MinTime  time.Duration
	Size     kernels.Size
	Seed     int64
	Executor gpu.Executor
	// History turns on the detector's history (sites of both sides)
	// in every configuration, which costs a site lookup per access; off,
	// as the overhead of detection itself is what the matrix measures.
	// A configuration named with ":history" (race.Config) has history
	// either way, so that one matrix can set the two side by side.
	History bool
	// CPUs, if positive, is GOMAXPROCS during the run, restored after it:
	// how many goroutines check at once. GOMAXPROCS belongs to the
	// process, so nothing else should run meanwhile.
	CPUs int
	// Progress, if not nil, gets a line per cell as its kernel completes,
	// with the kernel's place in the matrix ([i/N]) and, on its last line,
	// the time spent and the time the rest should take.
	Progress io.Writer
}

// A Cell is one kernel under one configuration.
type Cell struct {
	Kernel, Config string
	CPUs           int             // GOMAXPROCS during the run
	Times          []time.Duration // each timed run's mean launch time
	Median         time.Duration
	Launches       int    // launches in the timed runs, which Stats covers
	Allocated      uint64 // bytes the process allocated during the timed runs' launches
	// RatioVsOff is Median over the median of the same kernel with
	// detection off, or 0 when "off" was not run.
	RatioVsOff float64
	Stats      race.Stats // the detector's counters over the timed runs' launches
	Err        error      // the first launch or output-check error, if any: a measurement of a wrong run
}

// Run measures every kernel under every configuration. The
// configurations of a kernel alternate run by run, each run in its own
// order (see order), so that drift in the machine's speed and what one
// configuration leaves behind for the next hit them alike.
func (m Matrix) Run(ctx context.Context) ([]Cell, error) {
	m = m.withDefaults()
	if m.CPUs > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(m.CPUs))
	}
	opts := make([]race.Options, len(m.Configs))
	for i, name := range m.Configs {
		o, err := race.Config(name)
		if err != nil {
			return nil, err
		}
		o.History = o.History || m.History
		opts[i] = o
	}
	if len(m.Kernels) > 0 {
		m.prime(ctx, m.Kernels[0], opts)
	}
	var out []Cell
	start := time.Now()
	for i, k := range m.Kernels {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		cells := m.kernel(ctx, k, opts)
		m.report(cells, i+1, time.Since(start))
		out = append(out, cells...)
	}
	return out, nil
}

func (m Matrix) withDefaults() Matrix {
	if m.Configs == nil {
		m.Configs = race.Configs()
	}
	if m.Runs <= 0 {
		m.Runs = 5
	}
	if m.Warmup == 0 {
		m.Warmup = 1
	}
	if m.MinTime == 0 {
		m.MinTime = time.Millisecond
	}
	return m
}

// prime runs k untimed under every configuration in turn until m.Prime
// has passed, with detectors of its own.
func (m Matrix) prime(ctx context.Context, k *kernels.Entry, opts []race.Options) {
	if m.Prime <= 0 {
		return
	}
	if m.Progress != nil {
		fmt.Fprintf(m.Progress, "priming for %s with %s\n", FormatDuration(m.Prime), k.Name)
	}
	c := Case{Kernel: k, Size: m.Size, Seed: m.Seed, Executor: m.Executor}
	dets := detectors(opts)
	for start := time.Now(); time.Since(start) < m.Prime && ctx.Err() == nil; {
		for _, det := range dets {
			once(ctx, c, det)
		}
	}
}

// detectors returns a fresh detector for each of opts, nil where it is off.
func detectors(opts []race.Options) []*race.Detector {
	dets := make([]*race.Detector, len(opts))
	for i := range opts {
		if !opts[i].Off {
			dets[i] = race.New(opts[i])
		}
	}
	return dets
}

// kernel measures k under every configuration.
func (m Matrix) kernel(ctx context.Context, k *kernels.Entry, opts []race.Options) []Cell {
	cells := make([]Cell, len(opts))
	dets := detectors(opts)
	for i := range cells {
		cells[i] = Cell{Kernel: k.Name, Config: m.Configs[i], CPUs: runtime.GOMAXPROCS(0)}
	}
	c := Case{Kernel: k, Size: m.Size, Seed: m.Seed, Executor: m.Executor}
	for rep := -max(m.Warmup, 0); rep < m.Runs; rep++ {
		for _, i := range m.order(rep, len(cells)) {
			mean, n, alloc, err := m.sample(ctx, c, dets[i])
			if err != nil && cells[i].Err == nil {
				cells[i].Err = err
			}
			if rep < 0 {
				if dets[i] != nil {
					dets[i].Reset() // the counters cover the timed runs only
				}
				continue
			}
			cells[i].Times = append(cells[i].Times, mean)
			cells[i].Launches += n
			cells[i].Allocated += alloc
		}
	}
	m.finish(cells, dets)
	return cells
}

// order returns the order of n configurations in run rep (negative for
// warm-up runs): a permutation drawn from the matrix's seed and the run,
// the same for the same seed. In one fixed order, a configuration's time
// depends on its position (the garbage and cold caches its predecessor
// leaves); rotating the order evens out positions but keeps every
// configuration behind the same neighbour, so each run draws a fresh
// permutation.
func (m Matrix) order(rep, n int) []int {
	return rand.New(rand.NewPCG(uint64(m.Seed), uint64(int64(rep)))).Perm(n)
}

// sample is one run of c under det: launches until they add up to
// m.MinTime, or the first that fails to launch or computes a wrong
// output. It returns their mean launch time, how many there were, the
// bytes they allocated and that failure.
func (m Matrix) sample(ctx context.Context, c Case, det *race.Detector) (time.Duration, int, uint64, error) {
	var total time.Duration
	var alloc uint64
	for n := 1; ; n++ {
		r := once(ctx, c, det)
		total, alloc = total+r.Elapsed, alloc+r.Allocated
		if err := r.Err(); err != nil || total >= m.MinTime || ctx.Err() != nil {
			return total / time.Duration(n), n, alloc, err
		}
	}
}

// once runs c once under det, which may be nil.
func once(ctx context.Context, c Case, det *race.Detector) Outcome {
	if det == nil {
		return Once(ctx, c, nil)
	}
	return Once(ctx, c, det)
}

// finish computes the medians, ratios and counters of one kernel's cells.
func (m Matrix) finish(cells []Cell, dets []*race.Detector) {
	var off time.Duration
	for i := range cells {
		cells[i].Median = median(cells[i].Times)
		if dets[i] != nil {
			cells[i].Stats = dets[i].Stats()
		} else {
			off = cells[i].Median
		}
	}
	for i := range cells {
		if off > 0 {
			cells[i].RatioVsOff = float64(cells[i].Median) / float64(off)
		}
	}
}

// report writes the cells of the done-th kernel to m.Progress, a line
// each, counted against the matrix's kernels; the last line says how long
// the rest should take at the pace so far.
func (m Matrix) report(cells []Cell, done int, elapsed time.Duration) {
	if m.Progress == nil {
		return
	}
	n := len(m.Kernels)
	for i, c := range cells {
		fmt.Fprintf(m.Progress, "[%d/%d] %s %s: %s", done, n, c.Kernel, c.Config, FormatDuration(c.Median))
		if c.RatioVsOff > 0 { // 0: no off measured to compare with
			fmt.Fprintf(m.Progress, " (%.2fx)", c.RatioVsOff)
		}
		if i == len(cells)-1 {
			eta := elapsed / time.Duration(done) * time.Duration(n-done)
			fmt.Fprintf(m.Progress, "; elapsed %s, ETA %s", roughDuration(elapsed), roughDuration(eta))
		}
		fmt.Fprintln(m.Progress)
	}
}

// roughDuration formats d to a tenth of a second for progress lines, "0s"
// when it rounds to nothing.
func roughDuration(d time.Duration) string {
	if r := d.Round(time.Second / 10); r != 0 {
		return FormatDuration(r)
	}
	return "0s"
}

// median returns the median of ts (the mean of the middle two for an
// even count), or 0 for none.
func median(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// A Summary is one configuration's overhead across the kernels measured.
type Summary struct {
	Config      string
	Kernels     int     // kernels with a ratio
	Geomean     float64 // geometric mean of the ratios vs off
	Worst       float64 // the largest ratio
	WorstKernel string
}

// Summarize returns each configuration's overhead summary, in the order
// the configurations first appear in cells; configurations without
// ratios (no "off" run) get none.
func Summarize(cells []Cell) []Summary {
	var out []Summary
	logs := map[string]float64{}
	for _, c := range cells {
		if c.RatioVsOff <= 0 || c.Err != nil {
			continue
		}
		i := slices.IndexFunc(out, func(s Summary) bool { return s.Config == c.Config })
		if i < 0 {
			out = append(out, Summary{Config: c.Config})
			i = len(out) - 1
		}
		s := &out[i]
		s.Kernels++
		logs[c.Config] += math.Log(c.RatioVsOff)
		if c.RatioVsOff > s.Worst {
			s.Worst, s.WorstKernel = c.RatioVsOff, c.Kernel
		}
	}
	for i := range out {
		out[i].Geomean = math.Exp(logs[out[i].Config] / float64(out[i].Kernels))
	}
	return out
}
