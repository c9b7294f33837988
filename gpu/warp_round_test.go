package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestWarpCollectivesAllocateNothingPerRound launches a block of eight
// warps running each warp collective few and many times, and checks that
// the many-round launch allocates no more than the few-round one: a
// collective allocates nothing per warp once its warp has run a few.
func TestWarpCollectivesAllocateNothingPerRound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	collectives := map[string]func(t *gpu.Thread, v int32) int32{
		"syncwarp": func(t *gpu.Thread, v int32) int32 { t.SyncWarp(gpu.FullMask); return v },
		"shfl":     func(t *gpu.Thread, v int32) int32 { return gpu.ShflSync(t, gpu.FullMask, v, 3, 32) },
		"shfl_down": func(t *gpu.Thread, v int32) int32 {
			return v + gpu.ShflDownSync(t, gpu.FullMask, v, 1, 32)
		},
		"ballot": func(t *gpu.Thread, v int32) int32 {
			return v + int32(gpu.BallotSync(t, gpu.FullMask, v&1 == 0)&1)
		},
		"any":        func(t *gpu.Thread, v int32) int32 { return v + b2i(gpu.AnySync(t, gpu.FullMask, v > 0)) },
		"reduce_add": func(t *gpu.Thread, v int32) int32 { return gpu.ReduceAddSync(t, gpu.FullMask, v) & 0xff },
		"match_any":  func(t *gpu.Thread, v int32) int32 { return v + int32(gpu.MatchAnySync(t, gpu.FullMask, v&3)&1) },
		"cg.reduce": func(t *gpu.Thread, v int32) int32 {
			return gpu.Reduce(gpu.TiledPartition(t, 32), v, gpu.Add[int32]) & 0xff
		},
		"cg.inclusive_scan": func(t *gpu.Thread, v int32) int32 {
			return gpu.InclusiveScan(gpu.TiledPartition(t, 16), v, gpu.Max[int32])
		},
		"tile.sync(16)": func(t *gpu.Thread, v int32) int32 { gpu.TiledPartition(t, 16).Sync(); return v },
		"tile.sync(64)": func(t *gpu.Thread, v int32) int32 { gpu.TiledPartition(t, 64).Sync(); return v },
	}
	d := newDevice(t)
	out := gpu.Alloc[int32](d, "out", 256)
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for name, op := range collectives {
			t.Run(ex.String()+"/"+name, func(t *testing.T) {
				cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 256}, Executor: ex}
				allocs := func(rounds int) float64 {
					k := func(t *gpu.Thread) {
						v := int32(t.ThreadRank())
						for range rounds {
							v = op(t, v)
						}
						out.Store(t, t.ThreadRank(), v)
					}
					return testing.AllocsPerRun(10, func() { require.NoError(t, d.Launch(context.Background(), cfg, k)) })
				}
				// Under Goroutines, the Go scheduler's own allocations as
				// goroutines block and wake vary with the launch's length:
				// allow fewer than one per warp per 8 rounds, where a
				// round allocated per warp per collective is 512.
				slack := 1.0
				if ex == gpu.Goroutines {
					slack = 64
				}
				few, many := allocs(4), allocs(68)
				require.LessOrEqual(t, many, few+slack, "64 more rounds of %s in each of 8 warps allocated %.0f more objects", name, many-few)
			})
		}
	}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
