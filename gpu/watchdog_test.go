package gpu_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestWatchdogTimeout spins forever on a flag nobody sets while the rest
// of the block waits at a barrier: LaunchConfig.Timeout ends the launch, and the
// error says where every thread was.
func TestWatchdogTimeout(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 4)
		var spin, bar atomic.Int64
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Executor: ex, Timeout: 250 * time.Millisecond}
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.ThreadRank() == 0 {
				spin.Store(int64(line() + 1))
				for flag.AtomicLoad(t, 2, scope.Device) == 0 {
				}
			}
			bar.Store(int64(line() + 1))
			t.SyncThreads()
		})
		require.Less(t, time.Since(start), 5*time.Second)
		require.ErrorIs(t, err, gpu.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorContains(t, err, "gpu: kernel: stopped: gpu: launch timeout after 250ms; unfinished threads:")
		for _, b := range []string{"(0,0,0)", "(1,0,0)"} {
			require.ErrorContains(t, err, fmt.Sprintf("block %s:\n\t\tthreads (0,0,0) running (load global \"flag\"[2]) at %s\n\t\tthreads (1,0,0)-(63,0,0) syncthreads at %s",
				b, siteOf(spin.Load()), siteOf(bar.Load())))
		}
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Len(t, se.Threads, 128)
		require.Equal(t, "running", se.Threads[0].At)
		require.Equal(t, gpu.Dim3{X: 5}, se.Threads[5].Thread)
		require.Equal(t, int(spin.Load()), se.Threads[0].Site.Line())
		require.Equal(t, "syncthreads", se.Threads[1].At)
	})
}

// TestWatchdogContext ends a launch of weak-load spinners, which never
// yield, by the context's deadline.
func TestWatchdogContext(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		var spin atomic.Int64
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 8}, Executor: ex}
		err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
			spin.Store(int64(line() + 1))
			for flag.Load(t, 0) == 0 {
			}
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotErrorIs(t, err, gpu.ErrTimeout)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		var running int
		for _, s := range se.Threads {
			require.Equal(t, int(spin.Load()), s.Site.Line(), "%+v", s)
			require.Equal(t, `load global "flag"[0]`, s.Access)
			running++
		}
		require.Equal(t, 8, running+se.NotStarted, "every thread is listed or counted: %v", err)
	})
}

// TestStallListsFirstThreads: past 4096 unfinished threads, the listing
// holds the first 4096 in global order, whichever stopped first, and
// counts the rest; its text says they come after those listed. The
// launch is cancelled once every thread spins, so none is left unstarted
// however slowly they start (under -race, on a loaded machine).
func TestStallListsFirstThreads(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		const blocks, size = 8, 1024
		var spinning atomic.Int64
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		go func() {
			for spinning.Load() < blocks*size && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: size}, Executor: ex, Watchdog: -1}
		err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
			spinning.Add(1)
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
		})
		require.ErrorIs(t, err, context.Canceled)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Zero(t, se.NotStarted)
		require.Len(t, se.Threads, 4096)
		for i, s := range se.Threads {
			require.Equal(t, i, s.GlobalID, "listed in global order from the first")
		}
		require.Equal(t, blocks*size-4096, se.More)
		require.ErrorContains(t, err, fmt.Sprintf("... and %d more unfinished threads after these", blocks*size-4096))
		require.Zero(t, se.Unstarted)
		require.NotContains(t, err.Error(), "blocks never started")
	})
}

// TestStallCountsUnstartedBlocks: a grid larger than the blocks resident
// at once, stopped while its first blocks spin, says how many of its
// blocks never started, so that a stopped huge grid reads as such.
func TestStallCountsUnstartedBlocks(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		const blocks = 100000
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 32}, Executor: ex, Timeout: 200 * time.Millisecond}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
		})
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Equal(t, blocks, se.Blocks)
		require.Positive(t, se.Unstarted)
		require.Less(t, se.Unstarted, blocks, "the resident blocks started")
		require.ErrorContains(t, err, fmt.Sprintf("%d of the launch's %d blocks never started", se.Unstarted, blocks))
	})
}

// TestWatchdogCancelledWithCause keeps the caller's cancellation cause.
func TestWatchdogCancelledWithCause(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	cause := fmt.Errorf("test gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	flag := gpu.Alloc[int32](d, "flag", 1)
	go func() { time.Sleep(20 * time.Millisecond); cancel(cause) }()
	err := d.Launch(ctx, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		for flag.LoadVolatile(t, 0) == 0 {
		}
	})
	require.ErrorIs(t, err, cause)
	require.ErrorIs(t, err, context.Canceled)
}

func TestWatchdogNegativeTimeout(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Timeout: -1}, func(*gpu.Thread) {})
	require.ErrorContains(t, err, "negative timeout")
}

// TestNoLeakAfterStalls ends launches in every way this package's
// never-hang machinery ends them, on every executor, and checks that none
// leaves a goroutine behind. It is not parallel, so no other test's
// goroutines are counted.
func TestNoLeakAfterStalls(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	d := newDevice(t)
	flag := gpu.Alloc[int32](d, "flag", 1)
	endings := map[string]gpu.Kernel{
		"divergence": func(t *gpu.Thread) {
			if t.ThreadRank() < 5 {
				return
			}
			t.SyncWarp(gpu.FullMask)
		},
		"deadlock": func(t *gpu.Thread) {
			if t.ThreadRank() == 0 {
				t.SyncWarp(gpu.FullMask)
				return
			}
			t.SyncThreads()
		},
		"grid deadlock": func(t *gpu.Thread) {
			if t.BlockRank() == 1 {
				t.SyncThreads()
				gpu.ActiveMask(t)
				return
			}
			gpu.ThisGrid(t).Sync()
		},
		"timeout at grid sync": func(t *gpu.Thread) {
			if t.GlobalID() == 0 {
				for flag.LoadVolatile(t, 0) == 0 {
				}
			}
			gpu.ThisGrid(t).Sync()
		},
	}
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for _, det := range []bool{false, true} {
			if det && ex == gpu.Goroutines {
				continue
			}
			for name, k := range endings {
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Executor: ex, Cooperative: true,
					Deterministic: det, Timeout: 30 * time.Millisecond}
				err := d.Launch(context.Background(), cfg, k)
				require.Error(t, err, "%v %s", ex, name)
				goleak.VerifyNone(t, ignoreIdle(baseline)...)
			}
		}
	}
}
