package block

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

// Reduce returns op folded over the v of every thread of the block, in
// rank order, to every thread. tmp is shared memory of at least
// [TempLen] elements. It executes a warp reduce and two __syncthreads.
func Reduce[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v T, op func(a, b T) T) T {
	needTemp(t, "Reduce", tmp, 0, TempLen(t))
	_, _, all := combine(t, tmp, 0, warp.Reduce(t, v, op), op)
	return all
}
