package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

func TestIndices3D(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		grid, block := gpu.Dim3{X: 3, Y: 2, Z: 2}, gpu.Dim3{X: 4, Y: 2, Z: 3}
		n := grid.Size() * block.Size()
		got := gpu.Alloc[int32](d, "coords", n*9)
		err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: grid, Block: block, Executor: ex}, func(t *gpu.Thread) {
			ti, bi := t.ThreadIdx(), t.BlockIdx()
			g := t.GlobalID()
			for k, v := range []int{ti.X, ti.Y, ti.Z, bi.X, bi.Y, bi.Z, t.ThreadRank(), t.BlockRank(), t.Lane()} {
				got.Store(t, g*9+k, int32(v))
			}
		})
		require.NoError(t, err)
		h := got.Host()
		for b := range grid.Size() {
			for r := range block.Size() {
				g := b*block.Size() + r
				want := []int32{
					int32(r % 4), int32(r / 4 % 2), int32(r / 8),
					int32(b % 3), int32(b / 3 % 2), int32(b / 6), int32(r), int32(b), int32(r % 32),
				}
				require.Equal(t, want, h[g*9:g*9+9], "block %d rank %d", b, r)
			}
		}
	})
}

func TestWarpIDs(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{WarpSize: 8})
	require.NoError(t, err)
	closeAtEnd(t, d)
	out := gpu.Alloc[int32](d, "ids", 3*20*3)
	err = launch1D(d, gpu.Fibers, 3, 20, func(t *gpu.Thread) {
		g := t.GlobalID()
		out.Store(t, g*3, int32(t.Lane()))
		out.Store(t, g*3+1, int32(t.Warp()))
		out.Store(t, g*3+2, int32(t.GlobalWarp()))
	})
	require.NoError(t, err)
	h := out.Host()
	for b := range 3 {
		for r := range 20 {
			g := b*20 + r
			// 20 threads in warps of 8 make 3 warps per block, the last partial.
			require.Equal(t, []int32{int32(r % 8), int32(r / 8), int32(b*3 + r/8)}, h[g*3:g*3+3])
		}
	}
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	nop := func(*gpu.Thread) {}
	cases := []struct {
		name string
		cfg  gpu.LaunchConfig
		k    gpu.Kernel
		want string
	}{
		{"nil kernel", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, nil, "nil kernel"},
		{"zero block", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}}, nop, "block dimensions (0,0,0) must be positive"},
		{"negative grid", gpu.LaunchConfig{Grid: gpu.Dim3{X: -1}, Block: gpu.Dim3{X: 1}}, nop, "grid dimensions (-1,0,0) must be positive"},
		{"block too big", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1025}}, nop, "exceed the limits"},
		{"block z", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1, Y: 1, Z: 65}}, nop, "exceed the limits"},
		{"too many threads", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64, Y: 32}}, nop, "has 2048 threads; the device allows 1024"},
		{"grid y", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1, Y: 65536}, Block: gpu.Dim3{X: 1}}, nop, "exceed the limits"},
		{"dynamic shared", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, DynamicShared: 1 << 20}, nop, "dynamic shared memory"},
		{"executor", gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Executor: 9}, nop, "unknown executor(9)"},
	}
	for _, c := range cases {
		ran := false
		k := c.k
		if k != nil {
			k = func(*gpu.Thread) { ran = true }
		}
		err := d.Launch(context.Background(), c.cfg, k)
		require.ErrorContains(t, err, c.want, c.name)
		require.False(t, ran, "%s: no thread may run", c.name)
	}
}

func TestInvalidDevice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg  gpu.DeviceConfig
		want string
	}{
		{gpu.DeviceConfig{WarpSize: 24}, "WarpSize = 24"},
		{gpu.DeviceConfig{WarpSize: 128}, "WarpSize = 128"},
		{gpu.DeviceConfig{SMs: -1}, "SMs = -1"},
		{gpu.DeviceConfig{MaxThreadsPerSM: 512}, "below MaxThreadsPerBlock"},
		{gpu.DeviceConfig{SharedMemPerBlock: -4}, "SharedMemPerBlock = -4"},
	}
	for _, c := range cases {
		_, err := gpu.NewDevice(c.cfg)
		require.ErrorContains(t, err, c.want)
	}
	d := newDevice(t)
	require.Equal(t, 32, d.Config().WarpSize)
	require.Equal(t, 1024, d.Config().MaxThreadsPerBlock)
}

func TestCooperativeTooLarge(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{SMs: 2, MaxBlocksPerSM: 2})
	require.NoError(t, err)
	closeAtEnd(t, d)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 5}, Block: gpu.Dim3{X: 32}, Cooperative: true}
	err = d.Launch(context.Background(), cfg, func(*gpu.Thread) {})
	require.ErrorIs(t, err, gpu.ErrCooperativeLaunchTooLarge)
	require.ErrorContains(t, err, "5 blocks of 32 threads, but the device holds 4")
	cfg.Grid.X = 4
	require.NoError(t, d.Launch(context.Background(), cfg, func(*gpu.Thread) {}))
}

func TestOutOfRange(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[float32](d, "x", 100)
		done := gpu.Alloc[int32](d, "done", 128)
		storeLine := line() + 2
		err := launch1D(d, ex, 2, 64, func(t *gpu.Thread) {
			x.Store(t, t.GlobalID(), 1) // threads 100..127 fail here
			done.Store(t, t.GlobalID(), 1)
		})
		var te *gpu.ThreadError
		require.ErrorAs(t, err, &te)
		require.Equal(t, 100, te.GlobalID, "errors come in global thread order")
		require.Equal(t, gpu.Dim3{X: 36, Y: 0, Z: 0}, te.Thread)
		require.Equal(t, gpu.Dim3{X: 1, Y: 0, Z: 0}, te.Block)
		var re *gpu.RangeError
		require.ErrorAs(t, err, &re)
		require.Equal(t, 100, re.Index)
		require.Equal(t, "x", re.Mem.Name)
		require.ErrorContains(t, err, fmt.Sprintf(`thread (36,0,0) of block (1,0,0) (global thread 100) at %s: store index 100 out of range [0:100] of global "x"`, siteOf(int64(storeLine))))
		require.Equal(t, storeLine, te.Site.Line(), "the error names the kernel's line")
		require.ErrorContains(t, err, "global thread 127")
		// The failing threads stopped; the others ran to the end.
		h := done.Host()
		for i := range 128 {
			require.Equal(t, int32(btoi(i < 100)), h[i], "thread %d", i)
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestErrorsAreCapped(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	err := launch1D(d, gpu.Fibers, 4, 256, func(t *gpu.Thread) { x.Load(t, t.GlobalID()+1) })
	require.ErrorContains(t, err, "gpu: kernel: 960 more thread errors not shown")
	require.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), 65)
}

func TestPanicReleasesBarriers(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		after := gpu.Alloc[int32](d, "after", 1)
		panicLine := line() + 3
		err := launch1D(d, ex, 4, 64, func(t *gpu.Thread) {
			if t.GlobalID() == 70 {
				panic("boom")
			}
			t.SyncThreads()
			t.SyncThreads()
			after.AtomicAdd(t, 0, 1, scope.Device)
		})
		var pe *gpu.PanicError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "boom", pe.Value)
		require.Contains(t, string(pe.Stack), "launch_test.go", "the stack shows the kernel")
		require.ErrorContains(t, err, fmt.Sprintf("thread (6,0,0) of block (1,0,0) (global thread 70) at %s: panic: boom", siteOf(int64(panicLine))))
		require.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), 1, "stopped siblings are not errors")
	})
}

func TestPanicWithErrorUnwraps(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	sentinel := errors.New("sentinel")
	err := launch1D(d, gpu.Fibers, 1, 1, func(*gpu.Thread) { panic(sentinel) })
	require.ErrorIs(t, err, sentinel)
}

func TestGoexitInKernel(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		exitLine := line() + 3
		err := launch1D(d, ex, 2, 32, func(t *gpu.Thread) {
			if t.GlobalID() == 3 {
				runtimeGoexit()
			}
			t.SyncThreads()
		})
		require.ErrorContains(t, err, "runtime.Goexit")
		require.ErrorContains(t, err, fmt.Sprintf("(global thread 3) at %s: ", siteOf(int64(exitLine))), "the kernel's line, not the helper's")
		// Threads 0-2 wait at the barrier, on fibers a hand-off chain holds
		// below thread 3's: the Goexit unwinds them, and they end as stopped
		// threads, not as threads that called it.
		require.Equal(t, 1, strings.Count(err.Error(), "kernel called runtime.Goexit"), "only thread 3 called runtime.Goexit: %v", err)
	})
}

func TestCancel(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		// Every thread spins on a flag nobody sets: only the deadline ends it.
		err := d.Launch(ctx, gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Executor: ex}, func(t *gpu.Thread) {
			for flag.LoadVolatile(t, 0) == 0 {
			}
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.ErrorContains(t, err, "gpu: kernel: stopped")
		require.Less(t, time.Since(start), 5*time.Second)
	})
}

func TestCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := d.Launch(ctx, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) { ran = true })
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, ran)
}

// TestCanceledBeforeStartNamesTheCause: a launch whose context was
// cancelled with a cause before it started returns an error matching
// both context.Canceled and the cause.
func TestCanceledBeforeStartNamesTheCause(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	why := errors.New("the host gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(why)
	err := d.Launch(ctx, gpu.LaunchConfig{Name: "late", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) {})
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, err, why)
	require.EqualError(t, err, "gpu: late: not started: context canceled: the host gave up")
}

func TestCancelWeakSpin(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	flag := gpu.Alloc[int32](d, "flag", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	// A weak-load spin never yields, but every access checks for the stop.
	err := d.Launch(ctx, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}}, func(t *gpu.Thread) {
		for flag.Load(t, 0) == 0 {
		}
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestSpinProgress checks liveness: threads spin on flags that other threads
// of the same block, and of another block, set later.
func TestSpinProgress(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flags := gpu.Alloc[int32](d, "flags", 2)
		seen := gpu.Alloc[int32](d, "seen", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Executor: ex}
		err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
			switch {
			case t.BlockRank() == 0 && t.ThreadRank() == 63: // the last thread of block 0 releases its block
				flags.StoreVolatile(t, 0, 1)
			case t.BlockRank() == 0:
				for flags.LoadVolatile(t, 0) == 0 {
				}
				for flags.AtomicLoad(t, 1, scope.Device) == 0 { // then waits on block 1
				}
				seen.AtomicAdd(t, 0, 1, scope.Device)
			case t.ThreadRank() == 0:
				flags.AtomicStore(t, 1, 1, scope.Device)
			}
		})
		require.NoError(t, err)
		require.Equal(t, int32(63), seen.Host()[0])
	})
}

func TestConcurrentLaunches(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	bufs := make([]gpu.Buffer[int64], 8)
	for i := range 8 {
		bufs[i] = gpu.Alloc[int64](d, "sum", 1)
		wg.Go(func() {
			errs[i] = launch1D(d, gpu.Executor(i%2), 16, 128, func(t *gpu.Thread) {
				bufs[i].AtomicAdd(t, 0, int64(t.GlobalID()), scope.Device)
			})
		})
	}
	wg.Wait()
	for i := range 8 {
		require.NoError(t, errs[i])
		require.Equal(t, int64(2048*2047/2), bufs[i].Host()[0])
	}
}

// TestLargeGrid runs 2^20 threads in more blocks than there are resident
// slots: slots are reused, and every thread runs exactly once.
func TestLargeGrid(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		if ex == gpu.Goroutines && testing.Short() {
			t.Skip("a goroutine per thread for 2^20 threads is slow; -short skips it")
		}
		d := newDevice(t)
		const n = 1 << 20
		hits := gpu.Alloc[uint32](d, "hits", n)
		require.NoError(t, launch1D(d, ex, n/256, 256, func(t *gpu.Thread) {
			hits.AtomicAdd(t, t.GlobalID(), 1, scope.Device)
		}))
		for i, v := range hits.Host() {
			require.Equal(t, uint32(1), v, "runs of thread %d", i)
		}
	})
}
