package warp

import "github.com/warpguard/warpguard/gpu"

// InclusiveScan returns, to lane i, op folded over the v of lanes 0 to i.
func InclusiveScan[T gpu.Elem](t *gpu.Thread, v T, op func(a, b T) T) T {
	if tile, ok := warpTile(t); ok {
		return gpu.InclusiveScan(tile, v, op)
	}
	return shuffleScan(t, v, op)
}

// ExclusiveScan returns, to lane i, op folded over init and the v of lanes
// 0 to i-1: init to lane 0.
func ExclusiveScan[T gpu.Elem](t *gpu.Thread, v, init T, op func(a, b T) T) T {
	var below T
	if tile, ok := warpTile(t); ok {
		below = gpu.ExclusiveScan(tile, v, op)
	} else {
		below = gpu.ShflUpSync(t, gpu.FullMask, shuffleScan(t, v, op), 1, t.Grid().WarpSize)
	}
	if t.Lane() == 0 {
		return init
	}
	return op(init, below)
}

// shuffleScan is the inclusive scan by Kogge-Stone steps of shuffles up,
// which never read a lane that does not exist: the source of lane i is
// below i.
func shuffleScan[T gpu.Elem](t *gpu.Thread, v T, op func(a, b T) T) T {
	ws := t.Grid().WarpSize
	for d := 1; d < ws; d <<= 1 {
		y := gpu.ShflUpSync(t, gpu.FullMask, v, d, ws)
		if t.Lane() >= d {
			v = op(y, v)
		}
	}
	return v
}
