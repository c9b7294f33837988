package racetest_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// count is library code that launches a kernel of its own: every thread
// adds one to *n. blockScope makes its atomic block-scoped, a scoped race
// across blocks.
func count(ctx context.Context, d *gpu.Device, n gpu.Buffer[int32], blockScope bool) error {
	s := scope.Device
	if blockScope {
		s = scope.Block
	}
	cfg := gpu.Config{Name: "count", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}}
	return d.Launch(ctx, cfg, func(t *gpu.Thread) { n.AtomicAdd(t, 0, 1, s) })
}

func TestDeviceChecksLaunchesItDoesNotMake(t *testing.T) {
	t.Parallel()
	for _, racy := range []bool{false, true} {
		rec := record(t)
		rec.run(func() {
			d := racetest.Device(rec)
			n := gpu.Alloc[int32](d, "n", 1)
			require.NoError(t, count(t.Context(), d, n, racy))
			require.NotNil(t, racetest.DetectorOf(d))
			require.Empty(t, rec.errs, "races fail the test when it ends, not before")
		})
		if !racy {
			require.Empty(t, rec.errs)
			continue
		}
		require.Len(t, rec.errs, 1)
		require.Contains(t, rec.errs[0], "(scoped-atomic)")
	}
}

func TestDetectorOfAPlainDevice(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	require.Nil(t, racetest.DetectorOf(d))
}

// TestDeviceChecksConcurrentLaunches: two launches running at once, each
// adding to one word with plain loads and stores, lose updates; the
// device's detector reports them although each launch alone is race-free
// (one thread each).
func TestDeviceChecksConcurrentLaunches(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec)
		x := gpu.Alloc[int32](d, "x", 1)
		var started, wg sync.WaitGroup
		started.Add(2)
		for _, name := range []string{"a", "b"} {
			wg.Go(func() {
				cfg := gpu.Config{Name: name, Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
				assert.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					if t.Rank() == 0 {
						started.Done()
						started.Wait() // both launches are running
					}
					x.Store(t, 0, x.Load(t, 0)+1)
				}))
			})
		}
		wg.Wait()
	})
	require.NotEmpty(t, rec.errs)
	require.Contains(t, strings.Join(rec.errs, "\n"), `of launch "`)
}

func TestDeviceOptions(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec, racetest.DeviceConfig(gpu.DeviceConfig{Name: "small", WarpSize: 8}), racetest.MaxReports(1))
		require.Equal(t, "small", d.Config().Name)
		require.Equal(t, 8, d.Config().WarpSize)
		x := gpu.Alloc[int32](d, "x", 2)
		cfg := gpu.Config{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
		require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			x.AtomicAdd(t, 0, 1, scope.Block)
			x.Store(t, 1, 1)
		}))
	})
	require.Len(t, rec.errs, 2, "one report kept, and the count of those dropped")
	require.Contains(t, rec.errs[1], "1 more races not shown")
}
