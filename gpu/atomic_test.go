package gpu_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// rmwCase is one atomic applied by a single thread to an element holding
// init: the old value it must return and the value it must leave.
type rmwCase[T gpu.Elem] struct {
	name      string
	init      T
	op        func(b gpu.Buffer[T], t *gpu.Thread) T
	old, want T
}

// runRMW applies each case in its own element and checks both values.
func runRMW[T gpu.Elem](t *testing.T, cases []rmwCase[T]) {
	t.Helper()
	d := newDevice(t)
	init := make([]T, len(cases))
	for i, c := range cases {
		init[i] = c.init
	}
	buf := gpu.FromHost(d, "x", init)
	olds := gpu.Alloc[T](d, "old", len(cases))
	require.NoError(t, launch1D(d, gpu.Fibers, 1, len(cases), func(t *gpu.Thread) {
		r := t.ThreadRank()
		olds.Store(t, r, cases[r].op(buf, t)) // case r uses element r
	}))
	got, gotOld := buf.Host(), olds.Host()
	for i, c := range cases {
		require.Equal(t, c.old, gotOld[i], "%s: old value", c.name)
		require.Equal(t, c.want, got[i], "%s: new value", c.name)
	}
}

const dev = scope.Device

func TestAtomicsUint32(t *testing.T) {
	t.Parallel()
	type B = gpu.Buffer[uint32]
	at := func(f func(b B, t *gpu.Thread, i int) uint32) func(B, *gpu.Thread) uint32 {
		return func(b B, t *gpu.Thread) uint32 { return f(b, t, t.ThreadRank()) }
	}
	runRMW(t, []rmwCase[uint32]{
		{"add wraps", math.MaxUint32, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicAdd(t, i, 2, dev) }), math.MaxUint32, 1},
		{"sub wraps", 1, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicSub(t, i, 3, dev) }), 1, math.MaxUint32 - 1},
		{"exch", 7, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicExch(t, i, 9, scope.Block) }), 7, 9},
		{"cas hit", 5, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicCAS(t, i, 5, 6, dev) }), 5, 6},
		{"cas miss", 5, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicCAS(t, i, 4, 6, dev) }), 5, 5},
		{"min", 5, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicMin(t, i, 3, dev) }), 5, 3},
		{"max", 5, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicMax(t, i, 3, dev) }), 5, 5},
		{"and", 0b1100, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicAnd(t, i, 0b1010, dev) }), 0b1100, 0b1000},
		{"or", 0b1100, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicOr(t, i, 0b1010, dev) }), 0b1100, 0b1110},
		{"xor", 0b1100, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicXor(t, i, 0b1010, dev) }), 0b1100, 0b0110},
		{"inc below limit", 3, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicInc(t, i, 5, dev) }), 3, 4},
		{"inc at limit wraps to 0", 5, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicInc(t, i, 5, dev) }), 5, 0},
		{"inc above limit wraps to 0", 9, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicInc(t, i, 5, dev) }), 9, 0},
		{"dec", 3, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicDec(t, i, 5, dev) }), 3, 2},
		{"dec at 0 wraps to limit", 0, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicDec(t, i, 5, dev) }), 0, 5},
		{"dec above limit", 9, at(func(b B, t *gpu.Thread, i int) uint32 { return b.AtomicDec(t, i, 5, dev) }), 9, 5},
	})
}

func TestAtomicsInt32(t *testing.T) {
	t.Parallel()
	type B = gpu.Buffer[int32]
	at := func(f func(b B, t *gpu.Thread, i int) int32) func(B, *gpu.Thread) int32 {
		return func(b B, t *gpu.Thread) int32 { return f(b, t, t.ThreadRank()) }
	}
	runRMW(t, []rmwCase[int32]{
		{"add wraps", math.MaxInt32, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicAdd(t, i, 1, dev) }), math.MaxInt32, math.MinInt32},
		{"add negative", 5, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicAdd(t, i, -7, dev) }), 5, -2},
		{"sub", -5, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicSub(t, i, 5, dev) }), -5, -10},
		{"min signed", 5, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicMin(t, i, -3, dev) }), 5, -3},
		{"max signed", -5, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicMax(t, i, -3, dev) }), -5, -3},
		{"and", -1, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicAnd(t, i, 6, dev) }), -1, 6},
		{"xor", -1, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicXor(t, i, 0, dev) }), -1, -1},
		{"cas", -4, at(func(b B, t *gpu.Thread, i int) int32 { return b.AtomicCAS(t, i, -4, 8, dev) }), -4, 8},
	})
}

func TestAtomics64(t *testing.T) {
	t.Parallel()
	type U = gpu.Buffer[uint64]
	runRMW(t, []rmwCase[uint64]{
		{"add wraps", math.MaxUint64, func(b U, t *gpu.Thread) uint64 { return b.AtomicAdd(t, t.ThreadRank(), 1, dev) }, math.MaxUint64, 0},
		{"high bits", 1 << 40, func(b U, t *gpu.Thread) uint64 { return b.AtomicOr(t, t.ThreadRank(), 1<<63, dev) }, 1 << 40, 1<<40 | 1<<63},
		{"cas", 1 << 33, func(b U, t *gpu.Thread) uint64 { return b.AtomicCAS(t, t.ThreadRank(), 1<<33, 3, dev) }, 1 << 33, 3},
	})
	type I = gpu.Buffer[int64]
	runRMW(t, []rmwCase[int64]{
		{"add wraps", math.MaxInt64, func(b I, t *gpu.Thread) int64 { return b.AtomicAdd(t, t.ThreadRank(), 1, dev) }, math.MaxInt64, math.MinInt64},
		{"min", -1, func(b I, t *gpu.Thread) int64 { return b.AtomicMin(t, t.ThreadRank(), math.MinInt64, dev) }, -1, math.MinInt64},
		{"exch", 4, func(b I, t *gpu.Thread) int64 { return b.AtomicExch(t, t.ThreadRank(), -4, scope.System) }, 4, -4},
	})
}

func TestAtomicsFloat(t *testing.T) {
	t.Parallel()
	type F = gpu.Buffer[float32]
	runRMW(t, []rmwCase[float32]{
		{"add", 1.5, func(b F, t *gpu.Thread) float32 { return b.AtomicAdd(t, t.ThreadRank(), 2.25, dev) }, 1.5, 3.75},
		{"sub", 1.5, func(b F, t *gpu.Thread) float32 { return b.AtomicSub(t, t.ThreadRank(), 2, dev) }, 1.5, -0.5},
		{"min", 1.5, func(b F, t *gpu.Thread) float32 { return b.AtomicMin(t, t.ThreadRank(), -2, dev) }, 1.5, -2},
		{"max", 1.5, func(b F, t *gpu.Thread) float32 { return b.AtomicMax(t, t.ThreadRank(), 2, dev) }, 1.5, 2},
		{"exch", 1.5, func(b F, t *gpu.Thread) float32 { return b.AtomicExch(t, t.ThreadRank(), 8, dev) }, 1.5, 8},
		// atomicCAS compares bits: +0 does not match -0.
		{"cas compares bits", float32(math.Copysign(0, -1)), func(b F, t *gpu.Thread) float32 { return b.AtomicCAS(t, t.ThreadRank(), 0, 1, dev) }, float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))},
	})
	type D = gpu.Buffer[float64]
	tenth := 0.1 // a variable, so the sum rounds as float64 arithmetic does
	runRMW(t, []rmwCase[float64]{
		{"add", 0.1, func(b D, t *gpu.Thread) float64 { return b.AtomicAdd(t, t.ThreadRank(), 0.2, dev) }, 0.1, tenth + 0.2},
		{"cas", 2, func(b D, t *gpu.Thread) float64 { return b.AtomicCAS(t, t.ThreadRank(), 2, 3, dev) }, 2, 3},
	})
}

func TestAtomicsContended(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		f := gpu.Alloc[float64](d, "f", 1)
		u := gpu.Alloc[uint32](d, "u", 2)
		require.NoError(t, launch1D(d, ex, 8, 128, func(t *gpu.Thread) {
			f.AtomicAdd(t, 0, 0.5, dev)
			u.AtomicInc(t, 0, 99, dev) // 1024 increments wrap every 100
			u.AtomicMax(t, 1, uint32(t.GlobalID()), dev)
		}))
		require.Equal(t, 512.0, f.Host()[0])
		require.Equal(t, []uint32{1024 % 100, 1023}, u.Host())
	})
}

func TestAtomicBitOpsOnFloatFail(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	f := gpu.Alloc[float32](d, "weights", 1)
	for name, op := range map[string]func(t *gpu.Thread){
		"atomicAnd": func(t *gpu.Thread) { f.AtomicAnd(t, 0, 1, dev) },
		"atomicOr":  func(t *gpu.Thread) { f.AtomicOr(t, 0, 1, dev) },
		"atomicXor": func(t *gpu.Thread) { f.AtomicXor(t, 0, 1, dev) },
		"atomicInc": func(t *gpu.Thread) { f.AtomicInc(t, 0, 1, dev) },
		"atomicDec": func(t *gpu.Thread) { f.AtomicDec(t, 0, 1, dev) },
	} {
		err := launch1D(d, gpu.Fibers, 1, 1, op)
		require.ErrorContains(t, err, name+` is not defined on float32 buffer "weights"`)
	}
}

func TestInvalidScope(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	err := launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Scope(7)) })
	require.ErrorContains(t, err, "atomicAdd with invalid scope(7)")
	err = launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { t.Fence(scope.Scope(9)) })
	require.ErrorContains(t, err, "fence with invalid scope(9)")
}

// TestIncDecUnsigned: CUDA defines atomicInc/atomicDec on unsigned int, so
// on a signed buffer the comparisons see the bit pattern as unsigned.
func TestIncDecUnsigned(t *testing.T) {
	t.Parallel()
	type B = gpu.Buffer[int32]
	runRMW(t, []rmwCase[int32]{
		{"dec of -1 (0xffffffff > 5) gives the limit", -1, func(b B, t *gpu.Thread) int32 { return b.AtomicDec(t, t.ThreadRank(), 5, dev) }, -1, 5},
		{"inc below a 'negative' limit (0xfffffffe)", 3, func(b B, t *gpu.Thread) int32 { return b.AtomicInc(t, t.ThreadRank(), -2, dev) }, 3, 4},
		{"inc at limit -1 wraps to 0", -1, func(b B, t *gpu.Thread) int32 { return b.AtomicInc(t, t.ThreadRank(), -1, dev) }, -1, 0},
	})
	type U = gpu.Buffer[uint64]
	runRMW(t, []rmwCase[uint64]{
		{"64-bit inc wraps past 2^32", 1<<32 - 1, func(b U, t *gpu.Thread) uint64 { return b.AtomicInc(t, t.ThreadRank(), 1<<40, dev) }, 1<<32 - 1, 1 << 32},
	})
}

// TestAtomicMinMaxNaN: AtomicMin and AtomicMax store what libcu++'s
// fetch_min and fetch_max do, cuda::std::min and max of the element and
// the operand: a NaN operand is not stored, and a NaN element stays, on
// float32 and on Half.
func TestAtomicMinMaxNaN(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	nan := float32(math.NaN())
	f := gpu.FromHost(d, "f", []float32{0, nan, 0, nan})
	h := gpu.FromHost(d, "h", []gpu.Half{0, gpu.HalfNaN, 0, gpu.HalfNaN})
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 4, func(t *gpu.Thread) {
		r := t.ThreadRank()
		if r%2 == 0 {
			f.AtomicMin(t, r, nan, dev) // min(0, NaN)
			h.AtomicMax(t, r, gpu.HalfNaN, dev)
			return
		}
		f.AtomicMax(t, r, 1, dev) // max(NaN, 1)
		h.AtomicMin(t, r, gpu.HalfFromFloat32(1), dev)
	}))
	fs, hs := f.Host(), h.Host()
	require.Equal(t, []float32{0, 0}, []float32{fs[0], fs[2]}, "a NaN operand is not stored")
	require.True(t, math.IsNaN(float64(fs[1])) && math.IsNaN(float64(fs[3])), "a NaN element stays: %v", fs)
	require.Equal(t, []gpu.Half{0, 0}, []gpu.Half{hs[0], hs[2]})
	require.Equal(t, []gpu.Half{gpu.HalfNaN, gpu.HalfNaN}, []gpu.Half{hs[1], hs[3]}, "bit for bit")
}
