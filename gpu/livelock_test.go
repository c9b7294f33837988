package gpu_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestLivelockDefault: with no deadline, no timeout and the device's
// default watchdog, a kernel spinning forever on a flag nobody sets while
// the rest of its block waits at a barrier stops with a listing of every
// unfinished thread and the access it spins on, instead of running until
// the test binary is killed.
func TestLivelockDefault(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		require.Equal(t, gpu.DefaultWatchdog, d.Config().Watchdog)
		flag := gpu.Alloc[int32](d, "flag", 4)
		var spin, bar atomic.Int64
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Executor: ex}
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
		require.Less(t, time.Since(start), 4*gpu.DefaultWatchdog)
		require.ErrorIs(t, err, gpu.ErrLivelock)
		require.NotErrorIs(t, err, context.DeadlineExceeded)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Len(t, se.Threads, 128)
		for _, s := range se.Threads {
			if s.Thread.X == 0 {
				require.Equal(t, `load global "flag"[2]`, s.Access, "%+v", s)
				require.Equal(t, int(spin.Load()), s.Site.Line(), "%+v", s)
				continue
			}
			require.Equal(t, "syncthreads", s.At, "%+v", s)
			require.Equal(t, int(bar.Load()), s.Site.Line(), "%+v", s)
		}
	})
}

// watchdogCfg is a launch with a short livelock window, so that tests of
// what trips it, and what must not, run fast.
func watchdogCfg(ex gpu.Executor, blocks, threads int) gpu.LaunchConfig {
	return gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}, Executor: ex, Watchdog: 100 * time.Millisecond}
}

// TestLivelockWindow: every thread of every block spins on CAS that never
// succeeds; LaunchConfig.Watchdog sets the window, and the error names it.
func TestLivelockWindow(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		lock := gpu.Alloc[int32](d, "lock", 1)
		lock.Fill(1)
		err := d.Launch(context.Background(), watchdogCfg(ex, 3, 32), func(t *gpu.Thread) {
			for lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
			}
		})
		require.ErrorIs(t, err, gpu.ErrLivelock)
		require.ErrorContains(t, err, "for 100ms")
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Equal(t, 96, len(se.Threads)+se.NotStarted)
		for _, s := range se.Threads {
			// Under the fiber executor every spinner is parked in a yield
			// when the launch stops: the listing still names its access.
			require.Contains(t, s.Access, `global "lock"[0]`, "%+v", s)
		}
	})
}

// TestLivelockOff: a negative LaunchConfig.Watchdog, or DeviceConfig.Watchdog,
// turns the watchdog off; the launch then runs to its deadline.
func TestLivelockOff(t *testing.T) {
	for _, devOff := range []bool{false, true} {
		dc := gpu.DeviceConfig{}
		cfg := watchdogCfg(gpu.Fibers, 1, 4)
		if devOff {
			dc.Watchdog, cfg.Watchdog = -1, 0
		} else {
			cfg.Watchdog = -1
		}
		d, err := gpu.NewDevice(dc)
		require.NoError(t, err)
		closeAtEnd(t, d)
		flag := gpu.Alloc[int32](d, "flag", 1)
		cfg.Timeout = 300 * time.Millisecond
		err = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			for flag.LoadVolatile(t, 0) == 0 {
			}
		})
		require.ErrorIs(t, err, gpu.ErrTimeout, "device off: %v", devOff)
		require.NotErrorIs(t, err, gpu.ErrLivelock)
	}
}

// busy computes for about d without calling into the runtime.
func busy(d time.Duration) int {
	n := 0
	for start := time.Now(); time.Since(start) < d; n++ {
	}
	return n
}

// TestLivelockLongCorrectKernels: kernels that spin for many windows
// while the thread they wait for computes without calling into the
// runtime, or that leave their spin for a long computation, or whose
// spinning threads keep changing memory, must never trip the watchdog.
func TestLivelockLongCorrectKernels(t *testing.T) {
	const long = 500 * time.Millisecond // five windows
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 2)
		kernels := map[string]struct {
			blocks, threads int
			k               gpu.Kernel
		}{
			"spin while another block computes": {2, 32, func(t *gpu.Thread) {
				if t.BlockRank() == 1 {
					if t.ThreadRank() == 0 {
						busy(long)
						flag.AtomicStore(t, 0, 1, scope.Device)
					}
					return
				}
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
			}},
			"spin while a thread of the block computes": {1, 32, func(t *gpu.Thread) {
				if t.ThreadRank() == 31 {
					busy(long)
					flag.AtomicStore(t, 0, 1, scope.Device)
					return
				}
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
			}},
			"compute after the spin": {2, 32, func(t *gpu.Thread) {
				if t.GlobalID() == 0 {
					flag.AtomicStore(t, 0, 1, scope.Device)
				}
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
				if t.ThreadRank() == 0 {
					busy(long)
				}
			}},
			"contended lock": {2, 64, func(t *gpu.Thread) {
				deadline := time.Now().Add(long)
				for time.Now().Before(deadline) {
					for flag.AtomicCAS(t, 1, 0, 1, scope.Device) != 0 {
					}
					flag.AtomicExch(t, 1, 0, scope.Device)
				}
			}},
		}
		for name, k := range kernels {
			flag.Fill(0)
			err := d.Launch(context.Background(), watchdogCfg(ex, k.blocks, k.threads), k.k)
			require.NoError(t, err, name)
		}
	})
}

// TestLivelockLeftRunning: a thread that never calls into the runtime
// cannot be stopped; Launch still returns soon after its deadline and
// names the block it left running.
func TestLivelockLeftRunning(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		var release atomic.Bool
		defer release.Store(true)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 4}, Executor: ex, Timeout: 50 * time.Millisecond}
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.BlockRank() == 1 && t.ThreadRank() == 2 {
				for !release.Load() { // no runtime call: the launch cannot stop it
				}
			}
		})
		require.Less(t, time.Since(start), 10*time.Second)
		require.ErrorIs(t, err, gpu.ErrTimeout)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Equal(t, []gpu.Dim3{{X: 1}}, se.LeftRunning)
		require.ErrorContains(t, err, fmt.Sprintf("block %v left running", gpu.Dim3{X: 1}))
	})
}

// TestLivelockGridSync: in a cooperative launch, one block's threads spin
// on a flag nobody sets while every other block waits at the grid sync
// for them. The waiting blocks run no code, so only the spinning block's
// watch can see the launch stuck: the launch stops at its watchdog, on
// both executors and under a deterministic schedule, listing the spinners'
// access and the others' grid sync, where it once ran forever.
func TestLivelockGridSync(t *testing.T) {
	run := func(t *testing.T, cfg gpu.LaunchConfig) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		cfg.Cooperative = true
		var spin, sync atomic.Int64
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.BlockRank() == 0 {
				spin.Store(int64(line() + 1))
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
			}
			sync.Store(int64(line() + 1))
			gpu.ThisGrid(t).Sync()
		})
		require.Less(t, time.Since(start), 50*cfg.Watchdog)
		require.ErrorIs(t, err, gpu.ErrLivelock)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Equal(t, 4*32, len(se.Threads)+se.NotStarted, "%v", err)
		waiting := 0
		for _, s := range se.Threads {
			if s.Block.X == 0 {
				require.Equal(t, `load global "flag"[0]`, s.Access, "%+v", s)
				require.Equal(t, int(spin.Load()), s.Site.Line(), "%+v", s)
				continue
			}
			require.Equal(t, "grid.sync", s.At, "%+v", s)
			require.Equal(t, int(sync.Load()), s.Site.Line(), "%+v", s)
			waiting++
		}
		require.Equal(t, 3*32, waiting, "every thread of blocks 1-3 listed at the grid sync")
	}
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) { run(t, watchdogCfg(ex, 4, 32)) })
	t.Run("deterministic", func(t *testing.T) {
		t.Parallel()
		cfg := watchdogCfg(gpu.Fibers, 4, 32)
		cfg.Deterministic = true
		run(t, cfg)
	})
}

// TestLivelockSameValueStores: threads spinning on a flag while they
// store back the value they read, by a volatile, relaxed atomic or
// release store, change no memory, and the watchdog stops them, as it
// does a spin on atomicExch of the same value; a store once counted as
// progress whatever it stored, and such a spin ran forever.
func TestLivelockSameValueStores(t *testing.T) {
	stores := map[string]func(t *gpu.Thread, x gpu.Buffer[int32]){
		"volatile": func(t *gpu.Thread, x gpu.Buffer[int32]) { x.StoreVolatile(t, 0, 0) },
		"atomic":   func(t *gpu.Thread, x gpu.Buffer[int32]) { x.AtomicStore(t, 0, 0, scope.Device) },
		"release":  func(t *gpu.Thread, x gpu.Buffer[int32]) { x.StoreRelease(t, 0, 0, scope.Device) },
	}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
				d := newDevice(t)
				lock := gpu.Alloc[int32](d, "lock", 1)
				err := d.Launch(context.Background(), watchdogCfg(ex, 2, 32), func(t *gpu.Thread) {
					for lock.AtomicLoad(t, 0, scope.Device) == 0 {
						store(t, lock)
					}
				})
				require.ErrorIs(t, err, gpu.ErrLivelock)
			})
		})
	}
}

// TestLivelockDeterministic: in a deterministic launch, slots waiting for
// the token are not running plain code; spinning blocks that pass it
// around still trip the watchdog.
func TestLivelockDeterministic(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	lock := gpu.Alloc[int32](d, "lock", 1)
	lock.Fill(1)
	cfg := watchdogCfg(gpu.Fibers, 3, 32)
	cfg.Deterministic = true
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		for lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
		}
	})
	require.ErrorIs(t, err, gpu.ErrLivelock)
}

// TestLivelockFlatHeap: a block whose threads spin forever, with no
// deadline, ends at the watchdog with the heap flat meanwhile (the fiber
// executor's run queue once grew by an entry per yield, tens of MB a
// second). Not parallel, so no other test's allocations are counted.
func TestLivelockFlatHeap(t *testing.T) {
	d := newDevice(t)
	flag := gpu.Alloc[int32](d, "flag", 1)
	cfg := watchdogCfg(gpu.Fibers, 1, 64)
	cfg.Watchdog = 2 * time.Second
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, ms.HeapInuse
	done := make(chan struct{})
	sampled := make(chan uint64)
	go func() {
		top := uint64(0)
		for {
			select {
			case <-done:
				sampled <- top
				return
			case <-time.After(50 * time.Millisecond):
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				top = max(top, m.HeapInuse)
			}
		}
	}()
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		for flag.LoadVolatile(t, 0) == 0 {
		}
	})
	close(done)
	peak = max(peak, <-sampled)
	require.ErrorIs(t, err, gpu.ErrLivelock)
	require.Less(t, peak-base, uint64(32<<20), "the heap grew while the block spun")
}
