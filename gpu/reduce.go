package gpu

import "math/bits"

// Integer is the set of Elem types the bitwise reductions accept.
type Integer interface {
	~int32 | ~uint32 | ~int64 | ~uint64
}

// fold combines the contributions of r's participating lanes with op, in
// lane order.
func fold[T Elem](r *round, op func(a, b T) T) T {
	a := r.arrived
	acc := fromBits[T](r.vals[bits.TrailingZeros64(a)])
	for a &= a - 1; a != 0; a &= a - 1 {
		acc = op(acc, fromBits[T](r.vals[bits.TrailingZeros64(a)]))
	}
	return acc
}

// Add returns a + b; with [Min], [Max], [And], [Or] and [Xor] it names an
// operation for [Reduce] and the scans, as cg::plus and friends do. On
// Halves it adds their values, as floats, rounding the sum to a Half.
func Add[T Elem](a, b T) T {
	if isHalf[T]() {
		return halfOp[T](OpAdd, a, b)
	}
	return a + b
}

// Min returns the smaller of a and b; of two Halves, by value.
func Min[T Elem](a, b T) T {
	if isHalf[T]() {
		return halfOp[T](OpMin, a, b)
	}
	return min(a, b)
}

// Max returns the larger of a and b; of two Halves, by value.
func Max[T Elem](a, b T) T {
	if isHalf[T]() {
		return halfOp[T](OpMax, a, b)
	}
	return max(a, b)
}

// halfOp applies op to a and b, Halves, by their values (see applyHalf):
// a Half's bits compare and add as a uint16's, which is not its value.
func halfOp[T Elem](op Op, a, b T) T {
	return fromBits[T](uint64(applyHalf(op, Half(toBits(a)), Half(toBits(b)))))
}

// And returns a & b.
func And[T Integer](a, b T) T { return a & b }

// Or returns a | b.
func Or[T Integer](a, b T) T { return a | b }

// Xor returns a ^ b.
func Xor[T Integer](a, b T) T { return a ^ b }

// ReduceAddSync is __reduce_add_sync: the sum of v over the participating
// lanes of mask, returned to each of them. Integer sums wrap as on the
// hardware; float sums (an extension: CUDA reduces integers only) add in
// lane order. It is a warp collective; see [ShflSync].
//
//go:noinline
func ReduceAddSync[T Elem](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceAdd, mask, toBits(v)), Add[T])
}

// ReduceMinSync is __reduce_min_sync: the minimum of v over the
// participating lanes of mask.
//
//go:noinline
func ReduceMinSync[T Elem](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceMin, mask, toBits(v)), Min[T])
}

// ReduceMaxSync is __reduce_max_sync: the maximum of v over the
// participating lanes of mask.
//
//go:noinline
func ReduceMaxSync[T Elem](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceMax, mask, toBits(v)), Max[T])
}

// ReduceAndSync is __reduce_and_sync: the bitwise and of v over the
// participating lanes of mask.
//
//go:noinline
func ReduceAndSync[T Integer](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceAnd, mask, toBits(v)), And[T])
}

// ReduceOrSync is __reduce_or_sync: the bitwise or of v over the
// participating lanes of mask.
//
//go:noinline
func ReduceOrSync[T Integer](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceOr, mask, toBits(v)), Or[T])
}

// ReduceXorSync is __reduce_xor_sync: the bitwise xor of v over the
// participating lanes of mask.
//
//go:noinline
func ReduceXorSync[T Integer](t *Thread, mask uint64, v T) T {
	t.mark()
	return fold(t.warpCollective(opReduceXor, mask, toBits(v)), Xor[T])
}
