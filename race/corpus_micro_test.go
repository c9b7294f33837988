package race_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
)

// executors are the executors every corpus kernel runs under.
func executors() []gpu.Executor { return []gpu.Executor{gpu.Fibers, gpu.Goroutines} }

// runKernel runs one catalog kernel, clean, under a fresh detector and
// returns the reports. It fails t if the launch or the output check fails.
func runKernel(t *testing.T, k *kernels.Entry, e gpu.Executor) []race.Report {
	t.Helper()
	return runKernelWith(t, k, e, racetest.New())
}

// runKernelWith is runKernel under a given detector.
func runKernelWith(t *testing.T, k *kernels.Entry, e gpu.Executor, det *race.Detector) []race.Report {
	t.Helper()
	d := newDevice(t)
	run, err := k.Setup(d, kernels.Params{})
	require.NoError(t, err)
	require.NoError(t, run.Launch(context.Background(), racetest.LaunchFunc(d, det, e)))
	require.NoError(t, run.Check())
	return det.Reports()
}

func newDevice(t testing.TB) *gpu.Device {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// verdict compares a kernel's reports with its expectation: a racy kernel
// must report at least one race and only races of its expected kinds, a
// clean one nothing. It returns the false positives (reports not allowed)
// and whether the race was missed.
func verdict(expect []race.Kind, racy bool, rs []race.Report) (fps []race.Report, missed bool) {
	for _, r := range rs {
		if !racy || !slices.Contains(expect, r.Kind) {
			fps = append(fps, r)
		}
	}
	return fps, racy && len(rs) == 0
}

// TestMicros runs ScoR's 32 microbenchmarks (TestRace... for the 18 racy,
// TestNoRace... for the 14 clean ones, in the style of runtime/race's
// testdata) under every executor and checks each verdict and kind, the
// Exact family's where it differs from ScoR's (TestCorpusConfigs checks
// every family).
func TestMicros(t *testing.T) {
	t.Parallel()
	for _, k := range kernels.Micros() {
		for _, e := range executors() {
			t.Run(testName(k)+"/"+e.String(), func(t *testing.T) {
				t.Parallel()
				rs := runKernel(t, k, e)
				want := k.ExpectedIn("", true) // racetest's detector is of the Exact family
				fps, missed := verdict(want, len(want) > 0, rs)
				for _, r := range fps {
					t.Errorf("unexpected report (want kinds %v):\n%v", want, r)
				}
				if missed {
					t.Errorf("missed the race (want one of %v)", want)
				}
				for _, r := range rs {
					if r.Current.Site.IsZero() || r.Previous.Site.IsZero() {
						t.Errorf("report lacks a site:\n%v", r)
					}
				}
			})
		}
	}
}

// testName turns "micro/race_interblock_blkatom" into
// "TestRaceInterblockBlkatom"-style names, so `go test -run` can pick the
// racy or the clean half.
func testName(k *kernels.Entry) string {
	name := strings.TrimPrefix(k.Name, "micro/")
	prefix := "Race"
	if rest, ok := strings.CutPrefix(name, "norace_"); ok {
		prefix, name = "NoRace", rest
	} else {
		name = strings.TrimPrefix(name, "race_")
	}
	return prefix + "_" + name
}

func TestMicroCounts(t *testing.T) {
	t.Parallel()
	racy, clean := 0, 0
	for _, k := range kernels.Micros() {
		if k.Racy {
			racy++
			require.NotEmpty(t, k.Expect, k.Name)
		} else {
			clean++
		}
	}
	require.Equal(t, 18, racy)
	require.Equal(t, 14, clean)
}
