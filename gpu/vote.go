package gpu

import "math/bits"

// votes returns the lanes of r whose contribution is non-zero.
func votes(r *round) uint64 {
	var m uint64
	for a := r.arrived; a != 0; a &= a - 1 {
		if l := bits.TrailingZeros64(a); r.vals[l] != 0 {
			m |= 1 << l
		}
	}
	return m
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// BallotSync is __ballot_sync: the mask of the participating lanes of mask
// whose pred is true, bit i for lane i. Like every warp collective it waits
// for every lane of mask; see [ShflSync].
//
//go:noinline
func BallotSync(t *Thread, mask uint64, pred bool) uint64 {
	t.mark()
	return votes(t.warpCollective(opBallot, mask, b2u(pred)))
}

// AnySync is __any_sync: whether any participating lane of mask has a
// true pred.
//
//go:noinline
func AnySync(t *Thread, mask uint64, pred bool) bool {
	t.mark()
	return votes(t.warpCollective(opAny, mask, b2u(pred))) != 0
}

// AllSync is __all_sync: whether every participating lane of mask has a
// true pred.
//
//go:noinline
func AllSync(t *Thread, mask uint64, pred bool) bool {
	t.mark()
	r := t.warpCollective(opAll, mask, b2u(pred))
	return votes(r) == r.arrived
}

// UniSync is __uni_sync: whether every participating lane of mask has the
// same pred.
//
//go:noinline
func UniSync(t *Thread, mask uint64, pred bool) bool {
	t.mark()
	r := t.warpCollective(opUni, mask, b2u(pred))
	v := votes(r)
	return v == 0 || v == r.arrived
}

// MatchAnySync is __match_any_sync: the mask of the participating lanes of
// mask whose v has the same bit pattern as the caller's.
//
//go:noinline
func MatchAnySync[T Elem](t *Thread, mask uint64, v T) uint64 {
	t.mark()
	return matching(t.warpCollective(opMatchAny, mask, toBits(v)), toBits(v))
}

// MatchAllSync is __match_all_sync: if every participating lane of mask
// has the same bit pattern of v, it returns their mask and true; otherwise
// 0 and false.
//
//go:noinline
func MatchAllSync[T Elem](t *Thread, mask uint64, v T) (uint64, bool) {
	t.mark()
	r := t.warpCollective(opMatchAll, mask, toBits(v))
	if m := matching(r, toBits(v)); m == r.arrived {
		return m, true
	}
	return 0, false
}

// matching returns the lanes of r that contributed v.
func matching(r *round, v uint64) uint64 {
	var m uint64
	for a := r.arrived; a != 0; a &= a - 1 {
		if l := bits.TrailingZeros64(a); r.vals[l] == v {
			m |= 1 << l
		}
	}
	return m
}
