package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"text/tabwriter"

	"github.com/warpguard/warpguard/race"
)

// A CellJSON is a Cell as `warpguard bench -json` prints it, one object
// per line. The counters, from Accesses to Widened, are per launch:
// the mean over the timed runs' launches.
type CellJSON struct {
	Kernel        string  `json:"kernel"`
	Config        string  `json:"config"`
	MedianNs      int64   `json:"median_ns"`
	RatioVsOff    float64 `json:"ratio_vs_off"`
	RunsNs        []int64 `json:"runs_ns"`
	Spread        float64 `json:"spread"` // Cell.Spread: the runs' interquartile range over their median
	Launches      int     `json:"launches"`
	CPUs          int     `json:"cpus"` // GOMAXPROCS
	Accesses      uint64  `json:"accesses"`
	Checks        uint64  `json:"checks"`
	Firsts        uint64  `json:"firsts"` // checks settled as a granule's first access, without a lock
	Repeats       uint64  `json:"repeats"`
	Coalesced     uint64  `json:"coalesced"`
	Locks         uint64  `json:"lock_acquisitions"`
	Contended     uint64  `json:"contended"`
	BackoffWaits  uint64  `json:"backoff_waits"`
	BackoffNs     uint64  `json:"backoff_ns"`
	Widened       uint64  `json:"widened"` // entries whose records went wide (race.Stats.Widened)
	Joins         uint64  `json:"joins"`   // vector clock entries the exact family's joins walked or wrote (race.Stats.Joins)
	Pairs         uint64  `json:"pairs"`   // recorded accesses the exact family's checks compared one by one (race.Stats.Pairs)
	Reports       int     `json:"reports"`
	MetadataBytes int64   `json:"metadata_bytes"`
	AllocBytes    uint64  `json:"alloc_bytes"` // bytes the process allocated per launch (Cell.AllocatedPerLaunch)
	Error         string  `json:"error,omitempty"`
}

// PerLaunch returns c's counters per launch: the access counters of Stats
// over Launches, rounded. Reports and metadata sizes are not sums, and
// are as in Stats.
func (c Cell) PerLaunch() race.Stats {
	s := c.Stats
	n := uint64(max(c.Launches, 1))
	for _, p := range []*uint64{&s.Accesses, &s.Checks, &s.Firsts, &s.Repeats, &s.Coalesced, &s.Locks, &s.Contended, &s.Waits, &s.WaitNs, &s.Widened, &s.Joins, &s.Pairs} {
		*p = (*p + n/2) / n
	}
	return s
}

// AllocatedPerLaunch returns the bytes the process allocated per timed
// launch, rounded: under `off` the runtime's own, under a detector the
// runtime's and the detector's.
func (c Cell) AllocatedPerLaunch() uint64 {
	n := uint64(max(c.Launches, 1))
	return (c.Allocated + n/2) / n
}

// Spread returns the interquartile range of c's runs over their median,
// by nearest rank: how far apart the middle half of the runs lay. A short
// kernel's runs spread far more than a long kernel's; a ratio between two
// cells means little when it is inside their spreads. It is 0 with fewer than two runs.
func (c Cell) Spread() float64 {
	if len(c.Times) < 2 || c.Median <= 0 {
		return 0
	}
	s := slices.Clone(c.Times)
	slices.Sort(s)
	n := len(s) - 1
	return float64(s[(3*n+3)/4]-s[n/4]) / float64(c.Median)
}

// JSON returns c as CellJSON.
func (c Cell) JSON() CellJSON {
	s := c.PerLaunch()
	j := CellJSON{Kernel: c.Kernel, Config: c.Config, MedianNs: c.Median.Nanoseconds(), RatioVsOff: c.RatioVsOff,
		Launches: c.Launches, CPUs: c.CPUs, Accesses: s.Accesses, Checks: s.Checks, Firsts: s.Firsts, Repeats: s.Repeats, Coalesced: s.Coalesced,
		Locks: s.Locks, Contended: s.Contended, BackoffWaits: s.Waits, BackoffNs: s.WaitNs, Widened: s.Widened, Joins: s.Joins, Pairs: s.Pairs,
		Reports: s.Reports, MetadataBytes: s.PeakMetadata, AllocBytes: c.AllocatedPerLaunch()}
	for _, t := range c.Times {
		j.RunsNs = append(j.RunsNs, t.Nanoseconds())
	}
	j.Spread = c.Spread()
	if c.Err != nil {
		j.Error = c.Err.Error()
	}
	return j
}

// WriteJSON writes one JSON object per cell, one per line.
func WriteJSON(w io.Writer, cells []Cell) error {
	enc := json.NewEncoder(w)
	for _, c := range cells {
		if err := enc.Encode(c.JSON()); err != nil {
			return err
		}
	}
	return nil
}

// WriteTable writes a row per cell, with the spread of its runs (± half
// their interquartile range, in percent of the median) and its counters
// per launch, then
// each configuration's overhead summary and the speedups the contention
// optimizations are judged by, then a line for each cell that failed
// ("error" in its ratio column) with its error.
func WriteTable(w io.Writer, cells []Cell) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tconfig\tmedian\tspread\tvs off\tchecks\tfirsts\tcoalesced\trepeats\tlocks\tcontended\tbackoff\tjoins\tpairs\treports\tmetadata\talloc\t")
	for _, c := range cells {
		ratio := "-"
		if c.RatioVsOff > 0 {
			ratio = fmt.Sprintf("%.2fx", c.RatioVsOff)
		}
		if c.Err != nil {
			ratio = "error"
		}
		s := c.PerLaunch()
		fmt.Fprintf(tw, "%s\t%s\t%s\t±%.0f%%\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", c.Kernel, c.Config, FormatDuration(c.Median), 50*c.Spread(), ratio,
			s.Checks, s.Firsts, s.Coalesced, s.Repeats, s.Locks, s.Contended, s.Waits, s.Joins, s.Pairs, s.Reports, s.PeakMetadata, c.AllocatedPerLaunch())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range Summarize(cells) {
		fmt.Fprintf(w, "%s: overhead vs off over %d kernels: geomean %.2fx, worst %.2fx (%s)\n", s.Config, s.Kernels, s.Geomean, s.Worst, s.WorstKernel)
	}
	writeErrors(w, cells)
	for _, p := range [][3]string{{"plain", "opt", "contention/*"}, {"central", "opt", ""}, {"exact", "opt", ""}} {
		if g, n := Speedup(cells, p[0], p[1], p[2]); n > 0 {
			fmt.Fprintf(w, "%s over %s on %d kernels %s: geomean %.2fx\n", p[1], p[0], n, orAll(p[2]), g)
		}
	}
	return nil
}

// writeErrors writes a line for each cell that failed: kernel,
// configuration and error.
func writeErrors(w io.Writer, cells []Cell) {
	for _, c := range cells {
		if c.Err != nil {
			fmt.Fprintf(w, "%s %s: error: %v\n", c.Kernel, c.Config, c.Err)
		}
	}
}

// Failed returns how many of cells failed: a launch error or a wrong
// output in one of their runs (Cell.Err).
func Failed(cells []Cell) int {
	n := 0
	for _, c := range cells {
		if c.Err != nil {
			n++
		}
	}
	return n
}

func orAll(glob string) string {
	if glob == "" {
		return "(all)"
	}
	return glob
}

// Speedup returns the geometric mean, over the kernels matching glob (""
// for all) measured under both, of config slow's median over config
// fast's, and how many kernels that is.
func Speedup(cells []Cell, slow, fast, glob string) (float64, int) {
	med := map[[2]string]float64{}
	for _, c := range cells {
		if ok, _ := path.Match(glob, c.Kernel); (glob == "" || ok) && c.Err == nil && c.Median > 0 {
			med[[2]string{c.Kernel, c.Config}] = float64(c.Median)
		}
	}
	var sum float64
	n := 0
	for _, c := range cells {
		if c.Config != fast {
			continue
		}
		f, okf := med[[2]string{c.Kernel, fast}]
		s, oks := med[[2]string{c.Kernel, slow}]
		if okf && oks {
			sum += math.Log(s / f)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}
