package gpu_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestHalfFromFloat32Bits: conversions with known binary16 bit patterns:
// normals, the extremes, subnormals, ties to even, overflow, NaN.
func TestHalfFromFloat32Bits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		f    float32
		bits uint16
	}{
		{0, 0x0000}, {float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800}, {1.0 / 3, 0x3555}, {0.1, 0x2e66},
		{65504, 0x7bff},                     // the largest finite Half
		{65519.99, 0x7bff}, {65520, 0x7c00}, // below and at the tie to Inf
		{1e10, 0x7c00}, {-1e10, 0xfc00}, // overflow
		{float32(math.Inf(1)), 0x7c00},        // Inf
		{0x1p-14, 0x0400},                     // the smallest normal
		{0x1p-24, 0x0001},                     // the smallest subnormal
		{1023 * 0x1p-24, 0x03ff},              // the largest subnormal
		{0x1p-25, 0x0000},                     // a tie between 0 and 2^-24: even, 0
		{0x1.000002p-25, 0x0001},              // just above the tie
		{3 * 0x1p-25, 0x0002},                 // a tie between 1 and 2 ulps: even, 2
		{-5 * 0x1p-25, 0x8002},                // a negative tie between 2 and 3: 2
		{0x1p-40, 0x0000}, {0x1p-130, 0x0000}, // far below: 0 (the last a float32 subnormal)
		{1 + 0x1p-11, 0x3c00},                   // a tie between 1 and 1+2^-10: even, 1
		{1 + 3*0x1p-11, 0x3c02},                 // a tie between 1+2^-10 and 1+2^-9: even
		{2047.9, 0x6800}, {0x1.ffep-15, 0x0400}, // rounding carries into the exponent
	} {
		require.Equal(t, c.bits, uint16(gpu.HalfFromFloat32(c.f)), "%g (%x)", c.f, math.Float32bits(c.f))
	}
	nan := gpu.HalfFromFloat32(float32(math.NaN()))
	require.Equal(t, uint16(0x7c00), uint16(nan)&0x7c00)
	require.NotZero(t, uint16(nan)&0x3ff, "a NaN stays a NaN")
	require.True(t, math.IsNaN(float64(nan.Float32())))
	require.Equal(t, uint16(0xfe00), uint16(gpu.HalfFromFloat32(math.Float32frombits(0xff800001))), "sign kept, quieted")
}

// TestHalfRoundTrip: every Half but NaN converts to float32 and back to
// itself; NaNs stay NaNs.
func TestHalfRoundTrip(t *testing.T) {
	t.Parallel()
	for b := range 1 << 16 {
		h := gpu.Half(b)
		f := h.Float32()
		if b&0x7c00 == 0x7c00 && b&0x3ff != 0 {
			require.True(t, math.IsNaN(float64(f)), "%#04x", b)
			continue
		}
		require.Equal(t, h, gpu.HalfFromFloat32(f), "%#04x = %g", b, f)
	}
	require.Equal(t, float32(0x1p-24), gpu.Half(1).Float32())
	require.Equal(t, float32(-65504), gpu.Half(0xfbff).Float32())
}

// TestHalfNearest: for random float32s in the Half range, the result is
// a nearest Half, and of two nearest the one with an even significand.
func TestHalfNearest(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Float32frombits(r.Uint32())
		if math.IsNaN(float64(f)) || math.Abs(float64(f)) >= 65520 {
			continue
		}
		h := gpu.HalfFromFloat32(f)
		d := math.Abs(float64(h.Float32()) - float64(f))
		for _, n := range []gpu.Half{h + 1, h - 1} { // the neighbours by magnitude
			if n&0x7fff >= 0x7c00 || (h&0x7fff == 0 && n == h-1) {
				continue
			}
			dn := math.Abs(float64(n.Float32()) - float64(f))
			require.True(t, d < dn || d == dn && h&1 == 0, "%g: %#04x at %g, %#04x at %g", f, uint16(h), d, uint16(n), dn)
		}
	}
}

// TestHalfString: a Half prints as the shortest decimal of its float32
// value.
func TestHalfString(t *testing.T) {
	t.Parallel()
	require.Equal(t, "0.099975586", gpu.HalfFromFloat32(0.1).String())
	require.Equal(t, "1.5", gpu.HalfFromFloat32(1.5).String())
	require.Equal(t, "65504", gpu.HalfMax.String())
	require.Equal(t, "-Inf", gpu.HalfNegInf.String())
	require.Equal(t, "NaN", gpu.HalfNaN.String())
}
