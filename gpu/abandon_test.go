package gpu_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// launchWithin runs a launch on its own goroutine and fails the test if it
// has not returned within limit, so that a launch that hangs fails the
// test instead of the test binary's timeout.
func launchWithin(t *testing.T, d *gpu.Device, cfg gpu.LaunchConfig, k gpu.Kernel, limit time.Duration) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- d.Launch(context.Background(), cfg, k) }()
	select {
	case err := <-res:
		return err
	case <-time.After(limit):
		t.Fatalf("Launch had not returned after %v", limit)
		return nil
	}
}

// swallow calls f, recovering any panic, as a kernel's helper that guards
// its own code with recover does.
func swallow(f func()) {
	defer func() { _ = recover() }()
	f()
}

// TestSwallowedStop: a thread recovers the panic every runtime call stops
// it with and loops on. The watchdog stops the launch, whose context has no
// deadline; Launch returns within its grace, naming the thread's block as
// left running, instead of waiting for the thread forever.
func TestSwallowedStop(t *testing.T) {
	for _, c := range []struct {
		name string
		ex   gpu.Executor
		det  bool
	}{{"fibers", gpu.Fibers, false}, {"goroutines", gpu.Goroutines, false}, {"deterministic", gpu.Fibers, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t)
			flag := gpu.Alloc[int32](d, "flag", 1)
			var release atomic.Bool
			defer release.Store(true)
			cfg := watchdogCfg(c.ex, 2, 4)
			cfg.Deterministic = c.det
			err := launchWithin(t, d, cfg, func(t *gpu.Thread) {
				if t.BlockRank() == 1 && t.ThreadRank() == 2 {
					for !release.Load() {
						swallow(func() { flag.AtomicLoad(t, 0, scope.Device) })
					}
				}
			}, 30*time.Second)
			require.ErrorIs(t, err, gpu.ErrLivelock)
			var se *gpu.StallError
			require.ErrorAs(t, err, &se)
			require.Equal(t, []gpu.Dim3{{X: 1}}, se.LeftRunning)
			require.ErrorContains(t, err, fmt.Sprintf("block %v left running", gpu.Dim3{X: 1}))
			// Under fibers the block's other threads share the running
			// thread's goroutine: the error says why they are not listed.
			unlisted := strings.Contains(err.Error(), "share that thread's goroutine under the Fibers executor")
			require.Equal(t, c.ex == gpu.Fibers, unlisted, "%v", err)
		})
	}
}

// TestSwallowedStopAtBarrier: a thread waits at a barrier the others never
// reach, recovering the stop the divergence raises, and waits again. The
// stop stays: every SyncThreads stops it again, and Launch returns.
func TestSwallowedStopAtBarrier(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		var release, stopped atomic.Bool
		defer release.Store(true)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 4}, Executor: ex}
		err := launchWithin(t, d, cfg, func(t *gpu.Thread) {
			if t.ThreadRank() != 0 {
				return
			}
			for !release.Load() {
				swallow(func() { t.SyncThreads(); stopped.Store(false) })
			}
		}, 30*time.Second)
		var de *gpu.DivergenceError
		require.ErrorAs(t, err, &de)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Equal(t, []gpu.Dim3{{}}, se.LeftRunning)
	})
}

// TestSwallowedFault: an out-of-range load, an atomic with an invalid
// scope and a fence with one, each in a helper that recovers, still fail
// the thread: the error names the thread and the kernel's line, and the
// launch does not return nil.
func TestSwallowedFault(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", 4)
		load := line() + 4
		err := launch1D(d, ex, 2, 4, func(t *gpu.Thread) {
			switch t.GlobalID() {
			case 5:
				swallow(func() { buf.Load(t, 9) })
			case 6:
				swallow(func() { buf.AtomicAdd(t, 0, 1, scope.Scope(42)) })
			case 7:
				swallow(func() { t.Fence(scope.Scope(42)) })
			}
			buf.Store(t, t.ThreadRank(), 1) // the thread goes on, and ends normally
		})
		require.Error(t, err)
		var re *gpu.RangeError
		require.ErrorAs(t, err, &re)
		require.Equal(t, 9, re.Index)
		require.ErrorContains(t, err, fmt.Sprintf("thread (1,0,0) of block (1,0,0) (global thread 5) at %s: load index 9", siteOf(int64(load))))
		require.ErrorContains(t, err, fmt.Sprintf("thread (2,0,0) of block (1,0,0) (global thread 6) at %s: atomicAdd with invalid", siteOf(int64(load+2))))
		require.ErrorContains(t, err, fmt.Sprintf("thread (3,0,0) of block (1,0,0) (global thread 7) at %s: fence with invalid", siteOf(int64(load+4))))
	})
}
