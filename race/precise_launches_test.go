package race_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// launchAsync launches k with one thread on d under cfg's observer from
// a goroutine; the returned function waits for it and returns its error.
func launchAsync(d *gpu.Device, name string, det *race.Detector, k gpu.Kernel) func() error {
	var wg sync.WaitGroup
	var err error
	wg.Add(1)
	go func() {
		defer wg.Done()
		cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det}
		err = d.Launch(context.Background(), cfg, k)
	}()
	return func() error { wg.Wait(); return err }
}

// TestPreciseOverlappingLaunches: two launches from two goroutines on one
// precise detector that overlap (each waits, with device-scope atomics
// that order nothing, for the other to arrive) both write one word: the
// race is reported every time, naming the other launch, however early in
// its launch the first write came.
func TestPreciseOverlappingLaunches(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x, arrived := gpu.Alloc[int32](d, "x", 1), gpu.Alloc[int32](d, "arrived", 1)
	meet := func(t *gpu.Thread) {
		x.Store(t, 0, int32(t.GlobalID()))
		arrived.AtomicAdd(t, 0, 1, scope.Device)
		for arrived.AtomicLoad(t, 0, scope.Device)%2 != 0 {
		}
	}
	for run := range 20 {
		det := race.New(race.Options{Precise: true, History: true})
		wa, wb := launchAsync(d, "a", det, meet), launchAsync(d, "b", det, meet)
		require.NoError(t, errors.Join(wa(), wb()))
		rs := det.Reports()
		require.Len(t, rs, 1, "run %d: %v", run, rs)
		r := rs[0]
		require.Equal(t, race.MissingDeviceFence, r.Kind)
		require.NotEqual(t, r.Launch, r.Previous.Launch, "the previous side names the other launch: %v", r)
		require.NotEmpty(t, r.Previous.Launch)
	}
}

// TestPreciseHostOrderAcrossLaunches: while launch r runs (it waits for a
// flag), launch a writes x and returns, then launch b starts: b is
// ordered after a by host order and reads x cleanly. r, which started
// before a ended, knows nothing of a by itself: reading x after a relaxed
// poll of b's flag races with a's write, while a fence on each side of
// the flag orders it (b's release carries what b knew of a).
func TestPreciseHostOrderAcrossLaunches(t *testing.T) {
	t.Parallel()
	for _, fenced := range []bool{false, true} {
		d := newDevice(t)
		x, flag := gpu.Alloc[int32](d, "x", 1), gpu.Alloc[int32](d, "flag", 1)
		det := race.New(race.Options{Precise: true, History: true})
		running := make(chan struct{})
		wr := launchAsync(d, "r", det, func(t *gpu.Thread) {
			close(running)
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
			if fenced {
				t.ThreadFence()
			}
			x.Load(t, 0)
		})
		<-running // r started before a
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det}
		cfg.Name = "a"
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) }))
		cfg.Name = "b"
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.Load(t, 0)
			t.ThreadFence()
			flag.AtomicStore(t, 0, 1, scope.Device)
		}))
		require.NoError(t, wr())
		rs := det.Reports()
		if fenced {
			require.Empty(t, rs)
			continue
		}
		require.Len(t, rs, 1, "%v", rs)
		require.Equal(t, "r", rs[0].Launch)
		require.Equal(t, "a", rs[0].Previous.Launch)
	}
}

// TestPreciseHostOrderIsTransitive: a launch that starts after another
// ended follows every event that one's threads followed, events of a
// launch still running too. c runs throughout: its thread adds to x and
// releases a flag. a acquires the flag and adds to x (loading it first,
// or not: the word's set then has four members or three), and ends; d,
// started after a ended while c still runs, stores x: c's accesses
// happen before a's, which happen before d's by host order, so nothing
// races.
func TestPreciseHostOrderIsTransitive(t *testing.T) {
	t.Parallel()
	for _, loads := range []bool{true, false} {
		d := newDevice(t)
		x, flag := gpu.Alloc[int32](d, "x", 1), gpu.Alloc[int32](d, "flag", 1)
		det := race.New(race.Options{Precise: true, History: true})
		released, done := make(chan struct{}), make(chan struct{})
		wc := launchAsync(d, "c", det, func(t *gpu.Thread) {
			x.AtomicLoad(t, 0, scope.Device)
			x.AtomicAdd(t, 0, 1, scope.Device)
			flag.StoreRelease(t, 0, 1, scope.Device)
			close(released)
			<-done
		})
		<-released
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det}
		cfg.Name = "a"
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			for flag.LoadAcquire(t, 0, scope.Device) == 0 {
			}
			if loads {
				x.AtomicLoad(t, 0, scope.Device)
			}
			x.AtomicAdd(t, 0, 1, scope.Device)
		}))
		cfg.Name = "d"
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 5) }))
		close(done)
		require.NoError(t, wc())
		require.Empty(t, det.Reports(), "a loads x: %v", loads)
	}
}
