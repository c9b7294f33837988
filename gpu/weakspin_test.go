package gpu_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// weakSpinCases are the executors a weak-load spin must be caught under.
var weakSpinCases = []struct {
	name string
	ex   gpu.Executor
	det  bool
}{{"fibers", gpu.Fibers, false}, {"goroutines", gpu.Goroutines, false}, {"deterministic", gpu.Fibers, true}}

// TestWeakSpinLivelock: threads poll a flag nobody sets with weak loads,
// CUDA's "forgot volatile" bug. With no deadline, the watchdog stops the
// launch, and the listing says each thread polls a weak load and what to
// use instead. Such loads once never yielded nor counted as spinning, and
// Launch never returned.
func TestWeakSpinLivelock(t *testing.T) {
	for _, c := range weakSpinCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := newDevice(t)
			flag := gpu.Alloc[int32](d, "flag", 1)
			cfg := watchdogCfg(c.ex, 2, 4)
			cfg.Deterministic = c.det
			var spin atomic.Int64
			err := launchWithin(t, d, cfg, func(t *gpu.Thread) {
				spin.Store(int64(line() + 1))
				for flag.Load(t, 0) == 0 {
				}
			}, 30*time.Second)
			require.ErrorIs(t, err, gpu.ErrLivelock)
			var se *gpu.StallError
			require.ErrorAs(t, err, &se)
			require.Empty(t, se.LeftRunning)
			require.NotEmpty(t, se.Threads)
			for _, s := range se.Threads {
				require.Contains(t, s.At, "polling a weak load", "%+v", s)
				require.Contains(t, s.At, "LoadVolatile or AtomicLoad", "%+v", s)
				require.Equal(t, `load global "flag"[0]`, s.Access, "%+v", s)
				require.Equal(t, int(spin.Load()), s.Site.Line(), "%+v", s)
			}
			require.ErrorContains(t, err, `polling a weak load; spin with LoadVolatile or AtomicLoad (load global "flag"[0])`)
		})
	}
}

// TestWeakSpinProducer: a thread polls a flag with weak loads that a
// thread of its own block, then of another block, raises. The poller
// yields, so the producer runs and the launch ends, under every executor;
// the same-block producer once never ran under fibers, nor the other
// block's under Deterministic.
func TestWeakSpinProducer(t *testing.T) {
	for _, c := range weakSpinCases {
		for _, blocks := range []int{1, 2} {
			t.Run(c.name+map[int]string{1: "/same-block", 2: "/other-block"}[blocks], func(t *testing.T) {
				t.Parallel()
				d := newDevice(t)
				flag := gpu.Alloc[int32](d, "flag", 1)
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 2}, Executor: c.ex, Deterministic: c.det}
				err := launchWithin(t, d, cfg, func(t *gpu.Thread) {
					if t.GlobalID() == 0 {
						for flag.Load(t, 0) == 0 {
						}
						return
					}
					if t.GlobalID() == blocks*2-1 {
						flag.Store(t, 0, 1)
					}
				}, 30*time.Second)
				require.NoError(t, err)
			})
		}
	}
}

// TestWeakRereadsDoNotYield: a thread re-reads a constant many times among
// other work, as a correct kernel may. It never yields for it: thread 1 of
// the block, which under fibers starts only when thread 0 yields or ends,
// has not run when thread 0 looks.
func TestWeakRereadsDoNotYield(t *testing.T) {
	kernels := map[string]func(t *gpu.Thread, c, out gpu.Buffer[int32]){
		"a few hundred in a row": func(t *gpu.Thread, c, out gpu.Buffer[int32]) {
			s := int32(0)
			for range 1000 {
				s += c.Load(t, 0)
			}
			out.Store(t, 2, s)
		},
		"among stores": func(t *gpu.Thread, c, out gpu.Buffer[int32]) {
			for k := range 100_000 {
				out.Store(t, 2+k%4, c.Load(t, 0)+int32(k))
			}
		},
		"a loop over as many elements as the sampling period": func(t *gpu.Thread, c, out gpu.Buffer[int32]) {
			s := int32(0)
			for range 200 {
				for i := range 512 {
					s += c.Load(t, i)
				}
			}
			out.Store(t, 2, s)
		},
		"among loads of other elements": func(t *gpu.Thread, c, out gpu.Buffer[int32]) {
			s := int32(0)
			for k := range 100_000 {
				s += c.Load(t, 0) * out.Load(t, 2+k%4)
			}
			out.Store(t, 2, s)
		},
	}
	for name, k := range kernels {
		t.Run(name, func(t *testing.T) {
			d := newDevice(t)
			c, out := gpu.Alloc[int32](d, "c", 512), gpu.Alloc[int32](d, "out", 8)
			c.Fill(3)
			require.NoError(t, launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
				if t.ThreadRank() == 1 {
					out.Store(t, 0, 1)
					return
				}
				k(t, c, out)
				out.Store(t, 1, out.Load(t, 0))
			}))
			require.Equal(t, int32(0), out.Host()[1], "thread 0 yielded while re-reading a constant")
		})
	}
}

// TestWeakRereadsKeepWatchdogQuiet: every thread re-reads a constant with
// weak loads among weak stores for several watchdog windows; no thread
// spins, and the launch ends without error.
func TestWeakRereadsKeepWatchdogQuiet(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		c, out := gpu.Alloc[int32](d, "c", 1), gpu.Alloc[int32](d, "out", 64)
		c.Fill(3)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 4}, Executor: ex, Watchdog: 50 * time.Millisecond}
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			for time.Since(start) < 300*time.Millisecond {
				for k := range 1000 {
					out.Store(t, t.GlobalID(), c.Load(t, 0)+int32(k))
				}
			}
		})
		require.NoError(t, err)
	})
}
