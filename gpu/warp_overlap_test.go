package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// overlapModes runs f under both executors and every divergence mode:
// collectives whose masks overlap are legal CUDA, whatever is checked.
func overlapModes(t *testing.T, f func(t *testing.T, cfg gpu.LaunchConfig)) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		for _, m := range []gpu.DivergenceMode{gpu.DivergenceFail, gpu.DivergenceWarn, gpu.DivergenceAllow} {
			t.Run(m.String(), func(t *testing.T) {
				f(t, gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Executor: ex, Divergence: m})
			})
		}
	})
}

// TestOverlappingReduces: lanes that finish a reduce over their 8-lane
// tile go on to a reduce over the whole warp while other tiles still
// reduce; each lane must get its tile's and its warp's sums.
func TestOverlappingReduces(t *testing.T) {
	overlapModes(t, func(t *testing.T, cfg gpu.LaunchConfig) {
		d := newDevice(t)
		small, whole := make([]int32, 128), make([]int32, 128)
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			v := int32(t.ThreadRank())
			small[t.GlobalID()] = gpu.Reduce(gpu.TiledPartition(t, 8), v, gpu.Add[int32])
			whole[t.GlobalID()] = gpu.Reduce(gpu.TiledPartition(t, 32), v, gpu.Add[int32])
		}))
		for g := range 128 {
			r := g % 64
			lo8, lo32 := r/8*8, r/32*32
			require.Equal(t, int32(8*lo8+28), small[g], "tile-8 sum of global thread %d", g)
			require.Equal(t, int32(32*lo32+496), whole[g], "warp sum of global thread %d", g)
		}
	})
}

// TestOverlappingShuffles: a butterfly within each group of 8 lanes
// (ShflXorSync with mask 0xff<<k), then a full-warp shuffle.
func TestOverlappingShuffles(t *testing.T) {
	overlapModes(t, func(t *testing.T, cfg gpu.LaunchConfig) {
		d := newDevice(t)
		got := make([]int32, 128)
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			l := t.Lane()
			mask := uint64(0xff) << (l / 8 * 8)
			v := gpu.ShflXorSync(t, mask, int32(l), 1, 32)
			got[t.GlobalID()] = gpu.ShflSync(t, gpu.FullMask, v, 31-l, 32)
		}))
		for g := range 128 {
			src := 31 - g%32
			require.Equal(t, int32(src^1), got[g], "global thread %d", g)
		}
	})
}

// TestSyncWarpAfterTileReduce: a full-warp SyncWarp after an 8-lane
// reduce orders the writes before it for every lane of the warp.
func TestSyncWarpAfterTileReduce(t *testing.T) {
	overlapModes(t, func(t *testing.T, cfg gpu.LaunchConfig) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "sums", 128)
		got := make([]int32, 128)
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			g := t.GlobalID()
			buf.Store(t, g, gpu.Reduce(gpu.TiledPartition(t, 8), int32(1), gpu.Add[int32]))
			t.SyncWarp(gpu.FullMask)
			got[g] = buf.Load(t, g^31)
		}))
		for g := range 128 {
			require.Equal(t, int32(8), got[g], "global thread %d", g)
		}
	})
}

// TestOverlappingTileSyncs: threads of a 64-thread tile sync a 128-thread
// tile while the other half still syncs its own 64-thread tile.
func TestOverlappingTileSyncs(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "v", 128)
		got := make([]int32, 128)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 128}, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			r := t.ThreadRank()
			buf.Store(t, r, int32(r))
			gpu.TiledPartition(t, 64).Sync()
			gpu.TiledPartition(t, 128).Sync()
			got[r] = buf.Load(t, 127-r)
		}))
		for r := range 128 {
			require.Equal(t, int32(127-r), got[r], "thread %d", r)
		}
	})
}

// TestOverlapStillDiverges: a lane that exits while the others of its warp
// wait at a full-warp collective after a tile reduce is still a
// divergence; lanes that wait at another call site of the same
// collective meet, as on Volta.
func TestOverlapStillDiverges(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		err := launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			gpu.Reduce(gpu.TiledPartition(t, 8), int32(1), gpu.Add[int32])
			if t.Lane() == 9 {
				return
			}
			t.SyncWarp(gpu.FullMask)
		})
		var de *gpu.DivergenceError
		require.ErrorAs(t, err, &de)
		require.Equal(t, []int{9}, de.Exited)
		err = launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			gpu.Reduce(gpu.TiledPartition(t, 8), int32(1), gpu.Add[int32])
			if t.Lane() < 16 {
				t.SyncWarp(gpu.FullMask)
			} else {
				t.SyncWarp(gpu.FullMask)
			}
		})
		require.NoError(t, err)
	})
}

// TestWarpCollectiveAtTwoSites: a shuffle called from two branches of a
// divergent if is a divergence naming both lines, where a __syncwarp in
// each branch is one barrier: value-exchanging collectives at two sites
// are two computations, as a reduce in one branch and a scan in the other.
func TestWarpCollectiveAtTwoSites(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		err := launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			l := t.Lane()
			if l%2 == 0 {
				gpu.ShflSync(t, gpu.FullMask, int32(l), 0, 32)
			} else {
				gpu.ShflSync(t, gpu.FullMask, int32(l), 0, 32)
			}
		})
		var de *gpu.DivergenceError
		require.ErrorAs(t, err, &de)
		require.Len(t, de.Elsewhere, 1)
		require.Len(t, de.Waiting, 16)
	})
}
