package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// saxpy launches y = a*x + y over n threads in blocks of 256 under det
// (none if nil),
// each block staging its x in shared memory behind a __syncthreads.
func saxpy(tb testing.TB, n int, det *race.Detector) {
	d := newDevice(tb)
	x := gpu.Alloc[float32](d, "x", n)
	y := gpu.Alloc[float32](d, "y", n)
	const bs = 256
	cfg := gpu.LaunchConfig{Name: "saxpy", Grid: gpu.Dim3{X: n / bs}, Block: gpu.Dim3{X: bs}}
	if det != nil {
		cfg.Observer = det
	}
	require.NoError(tb, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		s := gpu.Shared[float32](t, "xs", bs)
		i, r := t.GlobalID(), t.ThreadRank()
		s.Store(t, r, x.Load(t, i))
		t.SyncThreads()
		y.Store(t, i, 2*s.Load(t, bs-1-r)+y.Load(t, i))
	}))
}

// TestPreciseScale runs a SAXPY-style launch of 2^20 threads (with the
// long build tag; 2^16 without, 2^12 with -short) under the precise mode:
// its clocks must not grow with the grid.
func TestPreciseScale(t *testing.T) {
	t.Parallel()
	n := 1 << 16
	switch {
	case long:
		n = 1 << 20
	case testing.Short():
		n = 1 << 12
	}
	det := race.New(race.Options{Precise: true})
	saxpy(t, n, det)
	require.Empty(t, det.Reports())
}

// BenchmarkPreciseScale runs the 2^20-thread SAXPY launch with no
// detector, under opt and under the precise mode, in ns per thread; with
// -benchmem, B/op is what a launch allocates, metadata included.
func BenchmarkPreciseScale(b *testing.B) {
	const n = 1 << 20
	for _, name := range []string{"off", "opt", "precise"} {
		b.Run("config="+name, func(b *testing.B) {
			opt, err := race.Config(name)
			require.NoError(b, err)
			for b.Loop() {
				var det *race.Detector
				if !opt.Off {
					det = race.New(opt)
				}
				saxpy(b, n, det)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/thread")
		})
	}
}
