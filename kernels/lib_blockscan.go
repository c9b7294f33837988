package kernels

import "github.com/warpguard/warpguard/gpu"

// blockScan returns the exclusive prefix sum of v over the block, in rank
// order, and the block's total, to every thread: each warp scans with
// shuffles, lane 31 stores its warp's total in the shared array name, warp
// 0 scans those after a __syncthreads, and each thread adds its warp's
// prefix after another. A last __syncthreads lets the caller scan again
// with the same array. The block must be whole warps of 32 lanes, at most
// 32 of them.
func blockScan(t *gpu.Thread, name string, v int32) (excl, total int32) {
	warps := t.Grid().Warps
	incl := warpInclusiveScan(t, v)
	sums := gpu.Shared[int32](t, name, warps)
	if t.Lane() == 31 {
		sums.Store(t, t.Warp(), incl)
	}
	t.SyncThreads()
	if t.Warp() == 0 {
		var s int32
		if t.Lane() < warps {
			s = sums.Load(t, t.Lane())
		}
		s = warpInclusiveScan(t, s)
		if t.Lane() < warps {
			sums.Store(t, t.Lane(), s)
		}
	}
	t.SyncThreads()
	var prefix int32
	if w := t.Warp(); w > 0 {
		prefix = sums.Load(t, w-1)
	}
	total = sums.Load(t, warps-1)
	t.SyncThreads()
	return prefix + incl - v, total
}

// warpInclusiveScan returns the inclusive prefix sum of v over the warp's
// lanes (Kogge-Stone with shuffles).
func warpInclusiveScan(t *gpu.Thread, v int32) int32 {
	for d := 1; d < 32; d <<= 1 {
		y := gpu.ShflUpSync(t, gpu.FullMask, v, d, 32)
		if t.Lane() >= d {
			v += y
		}
	}
	return v
}
