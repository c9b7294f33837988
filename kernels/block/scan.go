package block

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

// InclusiveScan returns to the thread of rank i op folded over the v of
// ranks 0 to i, and to every thread the block's aggregate, op folded over
// every v. tmp is shared memory of at least [TempLen] elements. It
// executes a warp scan and two __syncthreads.
func InclusiveScan[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v T, op func(a, b T) T) (incl, aggregate T) {
	needTemp(t, "InclusiveScan", tmp, 0, TempLen(t))
	incl = warp.InclusiveScan(t, v, op)
	before, ok, all := combine(t, tmp, 0, t.Grid().BlockSize, incl, op)
	if ok {
		incl = op(before, incl)
	}
	return incl, all
}

// ExclusiveScan returns to the thread of rank i op folded over init and
// the v of ranks 0 to i-1 (init to rank 0), and to every thread the
// block's aggregate, op folded over every v without init. tmp is shared
// memory of at least [TempLen] elements. It executes a warp scan, a
// shuffle and two __syncthreads.
func ExclusiveScan[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v, init T, op func(a, b T) T) (excl, aggregate T) {
	needTemp(t, "ExclusiveScan", tmp, 0, TempLen(t))
	return exclusiveScan(t, tmp, 0, v, init, op)
}

// Prefix is the exclusive scan without an initial value, for an op with
// no identity: it returns to the thread of rank i op folded over the v of
// ranks 0 to i-1, with ok true, and to rank 0 ok false; and to every
// thread the block's aggregate. tmp is shared memory of at least
// [TempLen] elements. It executes a warp scan, a shuffle and two
// __syncthreads.
func Prefix[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], v T, op func(a, b T) T) (prefix T, ok bool, aggregate T) {
	needTemp(t, "Prefix", tmp, 0, TempLen(t))
	return prefixAt(t, tmp, 0, v, op)
}

// prefixAt is Prefix with tmp[base:base+warps] as its shared memory.
func prefixAt[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], base int, v T, op func(a, b T) T) (prefix T, ok bool, aggregate T) {
	incl := warp.InclusiveScan(t, v, op)
	prev := gpu.ShflUpSync(t, gpu.FullMask, incl, 1, t.Grid().WarpSize)
	before, ok, all := combine(t, tmp, base, t.Grid().BlockSize, incl, op)
	if t.Lane() == 0 {
		return before, ok, all
	}
	if ok {
		return op(before, prev), true, all
	}
	return prev, true, all
}

// exclusiveScan is ExclusiveScan with tmp[base:base+warps] as its shared
// memory.
func exclusiveScan[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], base int, v, init T, op func(a, b T) T) (excl, aggregate T) {
	prefix, ok, all := prefixAt(t, tmp, base, v, op)
	if ok {
		return op(init, prefix), all
	}
	return init, all
}
