package gpu

import "math/bits"

// A WarpGroup is a cooperative group within one warp, a [Tile] of up to a
// warp or a [Coalesced] group, on which the group collectives below work.
// Ranks are the group's thread ranks; each collective waits for every
// thread of the group, like the warp intrinsic it generalizes.
type WarpGroup interface {
	Size() int
	ThreadRank() int
	Sync()
	warpGroup(op string) (*Thread, uint64)
	fromRank(r int) int // the lane of rank r, for a tile r mod size
	rankOf(lane int) int
	width() int // a tile's size, 0 for a coalesced group
}

// Shfl is group.shfl(v, srcRank): every thread receives the v of the
// group's thread srcRank (mod the size), or keeps its own when no thread
// holds that rank (past the last thread of a partial last warp).
//
//go:noinline
func Shfl[T Elem, G WarpGroup](g G, v T, srcRank int) T {
	t, mask := g.warpGroup("shfl")
	t.mark()
	r := t.warpCollective(opShfl, mask, toBits(v))
	if g.width() == 0 {
		srcRank = (srcRank%g.Size() + g.Size()) % g.Size()
	}
	return shflResult[T](r, t.heldOr(g.fromRank(srcRank)))
}

// ShflDown is group.shfl_down(v, delta): every thread receives the v of
// the thread delta ranks above it, or keeps its own past the group's end,
// the last thread that exists in a tile of a partial last warp. As in
// CUDA, a tile and a coalesced group of the whole warp shuffle in
// hardware, which reads only delta's low log2(warp size) bits (see
// [ShflDownSync]); a smaller coalesced group counts delta in its ranks,
// and a negative one, a huge unsigned int in CUDA, keeps the caller's v.
//
//go:noinline
func ShflDown[T Elem, G WarpGroup](g G, v T, delta int) T {
	t, mask := g.warpGroup("shfl_down")
	t.mark()
	r := t.warpCollective(opShflDown, mask, toBits(v))
	return shflResult[T](r, groupSource(g, t, g.ThreadRank()+deltaOf(g, t, delta)))
}

// ShflUp is group.shfl_up(v, delta): every thread receives the v of the
// thread delta ranks below it, or keeps its own below rank 0. delta is
// read as [ShflDown] reads it.
//
//go:noinline
func ShflUp[T Elem, G WarpGroup](g G, v T, delta int) T {
	t, mask := g.warpGroup("shfl_up")
	t.mark()
	r := t.warpCollective(opShflUp, mask, toBits(v))
	return shflResult[T](r, groupSource(g, t, g.ThreadRank()-deltaOf(g, t, delta)))
}

// ShflXor is group.shfl_xor(v, laneMask): every thread receives the v of
// rank (its rank xor laneMask), or keeps its own past the group's end, as
// for [ShflDown]; a tile reads only laneMask's low log2(warp size) bits,
// as [ShflXorSync] does.
//
//go:noinline
func ShflXor[T Elem, G WarpGroup](g G, v T, laneMask int) T {
	t, mask := g.warpGroup("shfl_xor")
	t.mark()
	r := t.warpCollective(opShflXor, mask, toBits(v))
	return shflResult[T](r, groupSource(g, t, g.ThreadRank()^hardwareBits(g, t, laneMask)))
}

// deltaOf returns the ranks a shfl_down or shfl_up of g by delta moves:
// delta's low bits where g shuffles in hardware (see hardwareBits), else
// delta, or g's size, which moves past either end, for a negative delta.
func deltaOf[G WarpGroup](g G, t *Thread, delta int) int {
	if d := hardwareBits(g, t, delta); d >= 0 {
		return d
	}
	return g.Size()
}

// hardwareBits returns the low log2(warp size) bits of x where CUDA's g
// shuffles in hardware, a tile or a coalesced group of the whole warp,
// and x elsewhere.
func hardwareBits[G WarpGroup](g G, t *Thread, x int) int {
	if ws := t.blk.l.g.WarpSize; g.width() != 0 || g.Size() == ws {
		return x & (ws - 1)
	}
	return x
}

// groupSource returns the lane of rank src, or the caller's own lane when
// src is outside the group or names a lane past the end of a partial last
// warp, which no thread holds (a tile there counts its Size in ranks that
// do not exist).
func groupSource[G WarpGroup](g G, t *Thread, src int) int {
	if src < 0 || src >= g.Size() {
		return t.Lane()
	}
	return t.heldOr(g.fromRank(src))
}

// heldOr returns lane l of t's warp if a thread holds it, else t's own
// lane: a partial last warp has lanes past the block's end.
func (t *Thread) heldOr(l int) int {
	if t.rank-t.Lane()+l < t.blk.l.g.BlockSize {
		return l
	}
	return t.Lane()
}

// Ballot is group.ballot(pred): bit i is set for the group's thread of
// rank i whose pred is true.
//
//go:noinline
func Ballot[G WarpGroup](g G, pred bool) uint64 {
	t, mask := g.warpGroup("ballot")
	t.mark()
	return toRanks(g, votes(t.warpCollective(opBallot, mask, b2u(pred))))
}

// Any is group.any(pred): whether any thread of the group has a true pred.
//
//go:noinline
func Any[G WarpGroup](g G, pred bool) bool {
	t, mask := g.warpGroup("any")
	t.mark()
	return votes(t.warpCollective(opAny, mask, b2u(pred))) != 0
}

// All is group.all(pred): whether every thread of the group has a true
// pred.
//
//go:noinline
func All[G WarpGroup](g G, pred bool) bool {
	t, mask := g.warpGroup("all")
	t.mark()
	r := t.warpCollective(opAll, mask, b2u(pred))
	return votes(r) == r.arrived
}

// MatchAny is group.match_any(v): the ranks of the group's threads whose v
// has the caller's bit pattern, bit i for rank i.
//
//go:noinline
func MatchAny[T Elem, G WarpGroup](g G, v T) uint64 {
	t, mask := g.warpGroup("match_any")
	t.mark()
	return toRanks(g, matching(t.warpCollective(opMatchAny, mask, toBits(v)), toBits(v)))
}

// MatchAll is group.match_all(v, pred): if every thread of the group has
// the caller's bit pattern of v, the mask of all ranks and true; otherwise
// 0 and false.
//
//go:noinline
func MatchAll[T Elem, G WarpGroup](g G, v T) (uint64, bool) {
	t, mask := g.warpGroup("match_all")
	t.mark()
	r := t.warpCollective(opMatchAll, mask, toBits(v))
	if m := matching(r, toBits(v)); m == r.arrived {
		return toRanks(g, m), true
	}
	return 0, false
}

// toRanks turns a mask of lanes into a mask of the group's ranks.
func toRanks[G WarpGroup](g G, lanes uint64) uint64 {
	var m uint64
	for ; lanes != 0; lanes &= lanes - 1 {
		m |= 1 << g.rankOf(bits.TrailingZeros64(lanes))
	}
	return m
}

// Reduce is cg::reduce(g, v, op): op folded over every thread's v in rank
// order, returned to every thread. op must be associative and free of side
// effects, such as [Add], [Min], [Max], [And], [Or] or [Xor]; each thread
// evaluates the fold itself. A nil op is an error of the calling thread.
//
//go:noinline
func Reduce[T Elem, G WarpGroup](g G, v T, op func(a, b T) T) T {
	t, mask := g.warpGroup("reduce")
	needOp(t, "reduce", op)
	t.mark()
	return fold(t.warpCollective(opScan, mask, toBits(v)), op)
}

// InclusiveScan is cg::inclusive_scan(g, v, op): the thread of rank i
// receives op folded over the v of ranks 0 to i.
//
//go:noinline
func InclusiveScan[T Elem, G WarpGroup](g G, v T, op func(a, b T) T) T {
	t, mask := g.warpGroup("inclusive_scan")
	needOp(t, "inclusive_scan", op)
	t.mark()
	r := t.warpCollective(opScan, mask, toBits(v))
	return scan(r, t.Lane(), op, true)
}

// ExclusiveScan is cg::exclusive_scan(g, v, op): the thread of rank i
// receives op folded over the v of ranks 0 to i-1; rank 0 receives the
// zero value of T.
//
//go:noinline
func ExclusiveScan[T Elem, G WarpGroup](g G, v T, op func(a, b T) T) T {
	t, mask := g.warpGroup("exclusive_scan")
	needOp(t, "exclusive_scan", op)
	t.mark()
	r := t.warpCollective(opScan, mask, toBits(v))
	return scan(r, t.Lane(), op, false)
}

// needOp fails t, a thread calling the collective op names, if op is nil:
// the error then names the kernel's line that called the collective, and
// not the line of this package where a nil operator would fault. Every
// thread of the group makes the check before it arrives, so none waits
// for a thread that failed it.
func needOp[T Elem](t *Thread, name string, op func(a, b T) T) {
	if op == nil {
		t.failf("%s with a nil operator", name)
	}
}

// scan folds the contributions of r's lanes below lane (and lane itself if
// inclusive), in lane order, which is rank order in every group.
func scan[T Elem](r *round, lane int, op func(a, b T) T, inclusive bool) T {
	below := r.arrived & (1<<lane - 1)
	if inclusive {
		below |= 1 << lane
	}
	var acc T
	first := true
	for ; below != 0; below &= below - 1 {
		v := fromBits[T](r.vals[bits.TrailingZeros64(below)])
		if first {
			acc, first = v, false
			continue
		}
		acc = op(acc, v)
	}
	return acc
}
