package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// interleaved is a kernel whose event order depends on the interleaving:
// threads of several blocks race on a counter, spin on each other, meet at
// warp and block barriers.
func interleaved(d *gpu.Device) gpu.Kernel {
	counter := gpu.Alloc[int32](d, "counter", 1)
	flags := gpu.Alloc[int32](d, "flags", 4)
	return func(t *gpu.Thread) {
		old := counter.AtomicAdd(t, 0, 1, scope.Device)
		v := gpu.ShflXorSync(t, gpu.FullMask, old, 1, 32)
		if t.ThreadRank() == 0 && t.BlockRank() > 0 {
			for flags.AtomicLoad(t, t.BlockRank()-1, scope.Device) == 0 {
			}
		}
		t.SyncThreads()
		counter.AtomicAdd(t, 0, v&1, scope.Device)
		if t.ThreadRank() == 63 {
			flags.AtomicStore(t, t.BlockRank(), 1, scope.Device)
		}
	}
}

func runRecorded(t *testing.T, cfg gpu.LaunchConfig) []string {
	d := newDevice(t)
	rec := &recorder{}
	cfg.Grid, cfg.Block, cfg.Observer = gpu.Dim3{X: 4}, gpu.Dim3{X: 64}, rec
	require.NoError(t, d.Launch(context.Background(), cfg, interleaved(d)))
	return rec.events
}

// TestDeterministicReplay runs the same launch again with the same seed:
// the recorded events come in the same order every time, and another seed
// gives another order.
func TestDeterministicReplay(t *testing.T) {
	t.Parallel()
	for _, s := range []gpu.Schedule{gpu.ScheduleDefault, gpu.ScheduleReverse, gpu.ScheduleRandom} {
		cfg := gpu.LaunchConfig{Deterministic: true, Schedule: s, Seed: 42}
		first := runRecorded(t, cfg)
		for range 3 {
			require.Equal(t, first, runRecorded(t, cfg), "schedule %v", s)
		}
		if s == gpu.ScheduleRandom {
			cfg.Seed = 43
			require.NotEqual(t, first, runRecorded(t, cfg), "another seed, another interleaving")
		}
	}
}

func TestReverseSchedule(t *testing.T) {
	t.Parallel()
	ev := runRecorded(t, gpu.LaunchConfig{Deterministic: true, Schedule: gpu.ScheduleReverse})
	require.Equal(t, "block 3 start", ev[1], "the last block runs first")
	require.Contains(t, ev[2], "t255 atomicAdd", "its last thread starts first")
}

// TestSchedulesAgree runs a correct kernel under every schedule and
// executor: the results must not change.
func TestSchedulesAgree(t *testing.T) {
	for _, s := range []gpu.Schedule{gpu.ScheduleDefault, gpu.ScheduleReverse, gpu.ScheduleRandom} {
		t.Run(s.String(), func(t *testing.T) {
			eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
				d := newDevice(t)
				const n, bs = 4096, 128
				out := gpu.Alloc[int64](d, "out", 1)
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: n / bs}, Block: gpu.Dim3{X: bs}, Executor: ex, Schedule: s, Seed: 7}
				require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					sh := gpu.Shared[int64](t, "s", bs)
					r := t.ThreadRank()
					sh.Store(t, r, int64(t.GlobalID()))
					t.SyncThreads()
					for stride := bs / 2; stride > 0; stride /= 2 {
						if r < stride {
							sh.Store(t, r, sh.Load(t, r)+sh.Load(t, r+stride))
						}
						t.SyncThreads()
					}
					if r == 0 {
						out.AtomicAdd(t, 0, sh.Load(t, 0), scope.Device)
					}
				}))
				require.Equal(t, int64(n*(n-1)/2), out.Host()[0])
			})
		})
	}
}

func TestScheduleConfig(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	nop := func(*gpu.Thread) {}
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Schedule: 7}, nop)
	require.ErrorContains(t, err, "unknown schedule(7)")
	err = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Deterministic: true, Executor: gpu.Goroutines}, nop)
	require.ErrorContains(t, err, "a deterministic launch needs the fibers executor, not goroutines")
}

// TestDeterministicCooperative runs a grid sync in a deterministic launch,
// whose slots take turns.
func TestDeterministicCooperative(t *testing.T) {
	t.Parallel()
	run := func() []string {
		d := newDevice(t)
		rec := &recorder{}
		x := gpu.Alloc[int32](d, "x", 1)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}, Cooperative: true, Deterministic: true,
			Schedule: gpu.ScheduleRandom, Seed: 1, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.AtomicAdd(t, 0, 1, scope.Device)
			gpu.ThisGrid(t).Sync()
			x.AtomicAdd(t, 0, 1, scope.Device)
		}))
		require.Equal(t, int32(256), x.Host()[0])
		return rec.events
	}
	require.Equal(t, run(), run())
}
