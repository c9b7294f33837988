package gpu

import (
	"math"
	"strconv"
	"unsafe"
)

// A Half is a 16-bit IEEE 754 binary16 floating-point number, CUDA's
// __half: 1 sign bit, 5 exponent bits, 10 fraction bits. Its underlying
// uint16 holds those bits; convert with [HalfFromFloat32] and
// [Half.Float32], not with a Go conversion, which would convert the bits
// as an integer.
//
// A Buffer[Half] is a buffer of floats: [Buffer.AtomicAdd],
// [Buffer.AtomicSub], [Buffer.AtomicMin] and [Buffer.AtomicMax] compute
// in floating point, rounding the result to the nearest Half (ties to
// even), as CUDA's atomicAdd on __half does, and the bitwise and
// counting atomics fail the thread, as on float32. [Buffer.AtomicCAS] and
// [Buffer.AtomicExch] compare and move bits, CUDA's atomicCAS on
// unsigned short.
type Half uint16

// The bits of some Halves.
const (
	HalfInf    Half = 0x7c00 // +Inf
	HalfNegInf Half = 0xfc00 // -Inf
	HalfNaN    Half = 0x7e00 // the canonical quiet NaN
	HalfMax    Half = 0x7bff // 65504, the largest finite Half
)

// HalfFromFloat32 returns the Half nearest f, ties to even, as CUDA's
// __float2half does: values beyond the largest finite Half by half an
// ulp or more become ±Inf, values below the smallest subnormal (2^-24)
// round to a subnormal or ±0, and a NaN stays a NaN (quiet, its sign and
// the top bits of its payload kept).
func HalfFromFloat32(f float32) Half {
	b := math.Float32bits(f)
	sign := uint32(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	frac := b & 0x7fffff
	switch {
	case exp == 0xff && frac != 0:
		return Half(sign | 0x7e00 | frac>>13)
	case exp == 0xff:
		return Half(sign | 0x7c00)
	case exp == 0:
		return Half(sign) // a float32 subnormal is below 2^-126: ±0
	}
	m := frac | 1<<23 // the 24-bit significand: f = m * 2^(exp-150)
	if e := exp - 127 + 15; e > 0 {
		// Normal: keep 11 significant bits. A carry out of them
		// (m == 0x800) moves into the exponent, as it should.
		h := uint32(e-1)<<10 + roundShift(m, 13)
		return Half(sign | min(h, 0x7c00))
	}
	// Subnormal: f / 2^-24 = m >> (126 - exp), rounded.
	if sh := uint(126 - exp); sh < 32 {
		return Half(sign | roundShift(m, sh))
	}
	return Half(sign)
}

// roundShift returns m / 2^sh rounded to the nearest integer, ties to
// even. Precondition: 1 <= sh < 32.
func roundShift(m uint32, sh uint) uint32 {
	q, rem, half := m>>sh, m&(1<<sh-1), uint32(1)<<(sh-1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}

// Float32 returns h as a float32, exactly: every Half is a float32.
func (h Half) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | frac<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	}
	v := float32(frac) * 0x1p-24 // ±0 or a subnormal, exact
	if sign != 0 {
		v = -v
	}
	return v
}

// String formats h as its value, the shortest decimal that converts back
// to the same float32, such as "1.5", "0.099975586" (the Half nearest
// 0.1) or "-Inf".
func (h Half) String() string {
	return strconv.FormatFloat(float64(h.Float32()), 'g', -1, 32)
}

// isHalf reports whether T is Half. T's size is a constant in each
// instantiation, so for 1-, 4- and 8-byte types this is a constant false.
func isHalf[T Elem]() bool {
	var z T
	if unsafe.Sizeof(z) != 2 {
		return false
	}
	_, ok := any(z).(Half)
	return ok
}

// applyHalf computes read-modify-write op on Halves old and v, in
// float32, rounding once to a Half. Rounding a float32 sum, difference or
// bound of two Halves to a Half gives the correctly rounded Half result:
// float32's 24-bit significand is at least 2*11+2 bits, so rounding twice
// is innocuous.
func applyHalf(op Op, old, v Half) Half {
	a, b := old.Float32(), v.Float32()
	switch op {
	case OpAdd:
		return HalfFromFloat32(a + b)
	case OpSub:
		return HalfFromFloat32(a - b)
	case OpMin:
		if b < a { // as lesser: a NaN element stays, bit for bit
			return v
		}
		return old
	case OpMax:
		if a < b {
			return v
		}
		return old
	}
	panic("gpu: applyHalf of " + op.String())
}
