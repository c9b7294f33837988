package bench_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
)

// TestMatrixRun measures two kernels under three configurations and checks
// the cells: one per kernel and configuration, in order, each with its
// runs, a median among them, a ratio of 1 for off and counters for the
// detectors.
func TestMatrixRun(t *testing.T) {
	var cat kernels.Catalog
	for _, name := range []string{"micro/norace_interblock_atom", "contention/hot-bin"} {
		k, ok := suiteKernels().Lookup(name)
		require.True(t, ok, name)
		cat = append(cat, k)
	}
	cells, err := bench.Matrix{Kernels: cat, Configs: []string{"off", "plain", "opt"}, Runs: 3, MinTime: -1}.Run(context.Background())
	require.NoError(t, err)
	require.Len(t, cells, 6)
	for i, c := range cells {
		require.Equal(t, cat[i/3].Name, c.Kernel)
		require.Equal(t, []string{"off", "plain", "opt"}[i%3], c.Config)
		require.NoError(t, c.Err)
		require.Len(t, c.Times, 3)
		require.Equal(t, 3, c.Launches, "MinTime < 0: one launch per run")
		require.Contains(t, c.Times, c.Median)
		require.Positive(t, c.RatioVsOff)
		if c.Config == "off" {
			require.InDelta(t, 1, c.RatioVsOff, 1e-9)
			require.Zero(t, c.Stats.Accesses)
		} else {
			require.Positive(t, c.Stats.Checks)
			require.Equal(t, c.Stats.Accesses, c.Stats.Checks+c.Stats.Repeats+c.Stats.Coalesced)
		}
	}
	_, err = bench.Matrix{Kernels: cat, Configs: []string{"turbo"}}.Run(context.Background())
	require.ErrorContains(t, err, "turbo")
}

// TestMatrixCountsAllocation: each cell counts the bytes its launches
// allocated, and the default detector's show in them beside the
// runtime's own under off: its clocks and sets in every launch, its
// shadow pages in those that find no kept shadow to reuse.
func TestMatrixCountsAllocation(t *testing.T) {
	k, ok := suiteKernels().Lookup("lib/histogram")
	require.True(t, ok)
	cells, err := bench.Matrix{Kernels: kernels.Catalog{k}, Configs: []string{"off", "exact"}, Runs: 2, MinTime: -1}.Run(context.Background())
	require.NoError(t, err)
	off, exact := cells[0], cells[1]
	require.Positive(t, off.AllocatedPerLaunch(), "the runtime allocates for a launch")
	require.Greater(t, exact.AllocatedPerLaunch(), off.AllocatedPerLaunch()+64<<10, "the detector's metadata")
	require.InDelta(t, exact.Allocated/2, exact.AllocatedPerLaunch(), 1, "two launches")
}

// TestMatrixMinTime: a run of a kernel that takes microseconds repeats
// the launch until the launches add up to MinTime, and its time is their
// mean, no more than MinTime.
func TestMatrixMinTime(t *testing.T) {
	k, ok := suiteKernels().Lookup("micro/norace_interblock_atom")
	require.True(t, ok)
	// Well above one launch's time, even a cold or collected one, so a
	// mean stays below it however the machine is loaded.
	minTime := 20 * time.Millisecond
	if raceEnabled {
		minTime = 50 * time.Millisecond // a launch under the race runtime may take longer than 2 ms
	}
	cells, err := bench.Matrix{Kernels: kernels.Catalog{k}, Configs: []string{"off", "opt"}, Runs: 2, MinTime: minTime}.Run(context.Background())
	require.NoError(t, err)
	for _, c := range cells {
		require.Greater(t, c.Launches, 2*2, "%s: several launches per run", c.Config)
		for _, d := range c.Times {
			require.Less(t, d, minTime, "%s: a run's time is the mean of its launches", c.Config)
		}
		if c.Config == "opt" {
			per := c.PerLaunch()
			require.Equal(t, (c.Stats.Checks+uint64(c.Launches)/2)/uint64(c.Launches), per.Checks)
			require.Equal(t, c.Stats.Reports, per.Reports)
		}
	}
}

// TestMatrixPrime: with Prime set, the matrix first runs its first kernel
// untimed for that long, under every configuration, and says so on
// Progress; the cells count only their own runs, and their detectors
// only the timed launches.
func TestMatrixPrime(t *testing.T) {
	k, ok := suiteKernels().Lookup("micro/norace_interblock_atom")
	require.True(t, ok)
	const prime = 60 * time.Millisecond
	var progress strings.Builder
	m := bench.Matrix{Kernels: kernels.Catalog{k}, Configs: []string{"off", "opt"}, Runs: 2, Warmup: -1, MinTime: -1, Prime: prime, Progress: &progress}
	start := time.Now()
	cells, err := m.Run(context.Background())
	require.NoError(t, err)
	require.GreaterOrEqual(t, time.Since(start), prime)
	require.Contains(t, progress.String(), "priming for 60ms with micro/norace_interblock_atom")
	for _, c := range cells {
		require.Equal(t, 2, c.Launches, c.Config)
	}
	require.Equal(t, uint64(2*2), cells[1].Stats.Accesses, "two timed launches of two accesses")

	progress.Reset()
	m.Prime = 0
	_, err = m.Run(context.Background())
	require.NoError(t, err)
	require.NotContains(t, progress.String(), "priming")
}

// cell is a measured cell with a given median, for the summary tests.
func cell(kernel, config string, median time.Duration, ratio float64) bench.Cell {
	return bench.Cell{Kernel: kernel, Config: config, Median: median, RatioVsOff: ratio}
}

func TestSummarize(t *testing.T) {
	cells := []bench.Cell{
		cell("a", "off", 10, 1), cell("a", "opt", 20, 2),
		cell("b", "off", 10, 1), cell("b", "opt", 80, 8),
	}
	s := bench.Summarize(cells)
	require.Len(t, s, 2)
	require.Equal(t, bench.Summary{Config: "off", Kernels: 2, Geomean: 1, Worst: 1, WorstKernel: "a"}, s[0])
	require.Equal(t, "opt", s[1].Config)
	require.InDelta(t, 4, s[1].Geomean, 1e-9) // sqrt(2*8)
	require.Equal(t, 8.0, s[1].Worst)
	require.Equal(t, "b", s[1].WorstKernel)
}

func TestSpeedup(t *testing.T) {
	cells := []bench.Cell{
		cell("contention/x", "plain", 90, 0), cell("contention/x", "opt", 10, 0),
		cell("contention/y", "plain", 10, 0), cell("contention/y", "opt", 10, 0),
		cell("lib/z", "plain", 1000, 0), cell("lib/z", "opt", 1, 0),
	}
	g, n := bench.Speedup(cells, "plain", "opt", "contention/*")
	require.Equal(t, 2, n)
	require.InDelta(t, 3, g, 1e-9) // sqrt(9*1)
	_, n = bench.Speedup(cells, "central", "opt", "")
	require.Zero(t, n)
}

// TestMatrixProgress: each cell's line carries its kernel's place among
// the matrix's kernels, and each kernel's last line the time spent and the
// time left.
func TestMatrixProgress(t *testing.T) {
	cat, err := suiteKernels().Match("micro/norace_interblock_atom,micro/norace_interwarp_fence_raw")
	require.NoError(t, err)
	require.Len(t, cat, 2)
	var progress strings.Builder
	m := bench.Matrix{Kernels: cat, Configs: []string{"off", "opt"}, Runs: 1, Warmup: -1, MinTime: -1, Progress: &progress}
	_, err = m.Run(context.Background())
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	require.Len(t, lines, 4, progress.String())
	require.True(t, strings.HasPrefix(lines[0], "[1/2] "+cat[0].Name+" off: "), lines[0])
	require.NotContains(t, lines[0], "ETA")
	require.Regexp(t, `^\[1/2\] `+cat[0].Name+` opt: .*\(\d+\.\d\dx\); elapsed .*, ETA `, lines[1])
	require.Regexp(t, `^\[2/2\] `+cat[1].Name+` opt: .*; elapsed (0s|[\d.]+s), ETA 0s$`, lines[3], "tenths of a second, 0s when none")

	progress.Reset()
	m.Configs = []string{"opt"}
	_, err = m.Run(context.Background())
	require.NoError(t, err)
	require.NotContains(t, progress.String(), "x)", "no ratio without off to compare with: %s", progress.String())
}

// wrongOutput is a kernel that launches fine and computes a wrong
// output: its check always fails.
func wrongOutput() *kernels.Entry {
	return &kernels.Entry{Name: "test/wrong-output", Doc: "checks against the wrong answer",
		Setup: func(d *gpu.Device, _ kernels.Params) (*kernels.Run, error) {
			launch := func(ctx context.Context, launch kernels.LaunchFunc) error {
				return launch(ctx, gpu.LaunchConfig{Name: "nothing", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) {})
			}
			return &kernels.Run{Launch: launch, Check: func() error { return errors.New("y[3] = 1, want 2") }}, nil
		}}
}

// TestMatrixWrongOutputIsAnError: a measurement whose output check fails
// is not a time: its cell carries the error under every configuration,
// and the table says "error" in its row and why after it.
func TestMatrixWrongOutputIsAnError(t *testing.T) {
	cells, err := bench.Matrix{Kernels: kernels.Catalog{wrongOutput()}, Configs: []string{"off", "exact"}, Runs: 1, MinTime: -1}.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, bench.Failed(cells))
	for _, c := range cells {
		require.EqualError(t, c.Err, "output: y[3] = 1, want 2", c.Config)
	}
	var table strings.Builder
	require.NoError(t, bench.WriteTable(&table, cells))
	require.Contains(t, table.String(), "test/wrong-output exact: error: output: y[3] = 1, want 2")
	require.Regexp(t, `test/wrong-output\s+off\s+\S+\s+\S+\s+error`, table.String())
}
