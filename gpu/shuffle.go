package gpu

import "math/bits"

// The source-lane arithmetic of PTX shfl.sync, generalized from 32 lanes
// to the device's warp size ws (a power of two). Lane, offset and width
// come from the calling lane; each function returns the lane to read, or
// the caller's own lane when the source falls outside its segment, as the
// hardware does. Only the low log2(ws) bits of srcLane, delta and laneMask
// count, as on the hardware.

// shflIdx is __shfl_sync's source: lane srcLane mod width of the caller's
// segment of width lanes.
func shflIdx(lane, srcLane, width, ws int) int {
	return lane&^(width-1) | srcLane&(ws-1)&(width-1)
}

// shflUp is __shfl_up_sync's source: delta lanes below, within the
// segment.
func shflUp(lane, delta, width, ws int) int {
	j := lane - delta&(ws-1)
	if j < lane&^(width-1) {
		return lane
	}
	return j
}

// shflDown is __shfl_down_sync's source: delta lanes above, within the
// segment.
func shflDown(lane, delta, width, ws int) int {
	j := lane + delta&(ws-1)
	if j > lane|(width-1) {
		return lane
	}
	return j
}

// shflXor is __shfl_xor_sync's source: lane xor laneMask, which may reach
// an earlier segment but never a later one.
func shflXor(lane, laneMask, width, ws int) int {
	j := lane ^ laneMask&(ws-1)
	if j > lane|(width-1) {
		return lane
	}
	return j
}

// checkWidth fails t unless width is a power of two from 1 to the warp
// size, as CUDA requires.
func (t *Thread) checkWidth(op collOp, width int) {
	ws := t.blk.l.g.WarpSize
	if width < 1 || width > ws || bits.OnesCount(uint(width)) != 1 {
		t.failf("%v with width %d; want a power of two from 1 to the warp size %d", op, width, ws)
	}
}

// shflResult returns lane src's value in r: the caller's own value if src
// is the caller, or the zero value (CUDA leaves it undefined) if src did
// not take part.
func shflResult[T Elem](r *round, src int) T {
	v, _ := r.val(src)
	return fromBits[T](v)
}

// ShflSync is __shfl_sync: every lane of mask passes v, and receives the v
// of lane srcLane mod width in its own segment of width lanes. width must
// be a power of two no larger than the warp size; pass the warp size for
// the whole warp. A source lane outside mask, or exited, gives the zero
// value, where CUDA's result is undefined.
//
// Like every warp collective, ShflSync waits until every lane of mask that
// exists has arrived, with the same mask and operation, at the same call
// site; a lane of mask that exits or arrives at another call site is a
// divergence (see [DivergenceMode]), and one waiting at another
// collective or mask a mismatch. In the
// terminology of [the Go memory model], the lanes' Go code before the
// collective "synchronizes before" their Go code after it, since the
// runtime meets them there; but like CUDA's intrinsics it orders no
// access of gpu memory, in the model package race checks: a lane that
// reads another's shared-memory write after a shuffle races with it unless
// a [Thread.SyncWarp] (or a tile's Sync) with both lanes orders the two.
//
// [the Go memory model]: https://go.dev/ref/mem
//
//go:noinline
func ShflSync[T Elem](t *Thread, mask uint64, v T, srcLane, width int) T {
	t.checkWidth(opShfl, width)
	t.mark()
	r := t.warpCollective(opShfl, mask, toBits(v))
	return shflResult[T](r, shflIdx(t.Lane(), srcLane, width, t.blk.l.g.WarpSize))
}

// ShflUpSync is __shfl_up_sync: each lane receives the v of the lane delta
// below it in its segment of width lanes, or keeps its own v when that
// lane would fall below the segment. See [ShflSync].
//
//go:noinline
func ShflUpSync[T Elem](t *Thread, mask uint64, v T, delta, width int) T {
	t.checkWidth(opShflUp, width)
	t.mark()
	r := t.warpCollective(opShflUp, mask, toBits(v))
	return shflResult[T](r, shflUp(t.Lane(), delta, width, t.blk.l.g.WarpSize))
}

// ShflDownSync is __shfl_down_sync: each lane receives the v of the lane
// delta above it in its segment of width lanes, or keeps its own v when
// that lane would fall beyond the segment. See [ShflSync].
//
//go:noinline
func ShflDownSync[T Elem](t *Thread, mask uint64, v T, delta, width int) T {
	t.checkWidth(opShflDown, width)
	t.mark()
	r := t.warpCollective(opShflDown, mask, toBits(v))
	return shflResult[T](r, shflDown(t.Lane(), delta, width, t.blk.l.g.WarpSize))
}

// ShflXorSync is __shfl_xor_sync: each lane receives the v of lane
// (its lane xor laneMask), the butterfly of reductions; a source beyond the
// caller's segment of width lanes gives its own v. See [ShflSync].
//
//go:noinline
func ShflXorSync[T Elem](t *Thread, mask uint64, v T, laneMask, width int) T {
	t.checkWidth(opShflXor, width)
	t.mark()
	r := t.warpCollective(opShflXor, mask, toBits(v))
	return shflResult[T](r, shflXor(t.Lane(), laneMask, width, t.blk.l.g.WarpSize))
}
