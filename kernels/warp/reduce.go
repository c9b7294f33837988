package warp

import "github.com/warpguard/warpguard/gpu"

// Reduce returns op folded over the v of every lane of t's warp, in lane
// order, to every lane.
func Reduce[T gpu.Elem](t *gpu.Thread, v T, op func(a, b T) T) T {
	if tile, ok := warpTile(t); ok {
		return gpu.Reduce(tile, v, op)
	}
	incl := shuffleScan(t, v, op)
	return gpu.ShflSync(t, gpu.FullMask, incl, lanes(t)-1, t.Grid().WarpSize)
}

// warpTile returns t's warp as a cooperative-groups tile, or false in a
// block smaller than a warp, which no tile of a warp's size fits.
func warpTile(t *gpu.Thread) (gpu.Tile, bool) {
	g := t.Grid()
	if g.BlockSize < g.WarpSize {
		return gpu.Tile{}, false
	}
	return gpu.TiledPartition(t, g.WarpSize), true
}

// lanes returns the number of lanes t's warp has: the warp size, or fewer
// in a partial last warp.
func lanes(t *gpu.Thread) int {
	g := t.Grid()
	return min(g.WarpSize, g.BlockSize-t.Warp()*g.WarpSize)
}
