package block

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

// Reduce returns op folded over the v of every thread of the block, in
// rank order, to every thread. tmp is shared memory of at least
// [TempLen] elements. It executes a warp scan and two __syncthreads.
func Reduce[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v T, op func(a, b T) T) T {
	return ReducePartial(t, tmp, v, t.Grid().BlockSize, op)
}

// ReducePartial is [Reduce] over the v of the first valid ranks only, for
// a tile that does not fill the block: op needs no identity for the
// others. Every thread of the block calls it with the same valid, from 1
// to the block size; a bad valid fails the thread.
func ReducePartial[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v T, valid int, op func(a, b T) T) T {
	needTemp(t, "Reduce", tmp, 0, TempLen(t))
	if valid < 1 || valid > t.Grid().BlockSize {
		panic(fmt.Sprintf("block.ReducePartial: valid %d; want 1 to the block size %d", valid, t.Grid().BlockSize))
	}
	// An inclusive scan, unlike a warp reduce, leaves the right total at a
	// warp's last valid lane whatever the invalid lanes hold.
	_, _, all := combine(t, tmp, 0, valid, warp.InclusiveScan(t, v, op), op)
	return all
}
