package gpu_test

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// refFold folds f over the values of the lanes of part, in lane order.
func refFold[T any](part uint64, val func(int) T, f func(a, b T) T) T {
	first := bits.TrailingZeros64(part)
	acc := val(first)
	for m := part & (part - 1); m != 0; m &= m - 1 {
		acc = f(acc, val(bits.TrailingZeros64(m)))
	}
	return acc
}

func TestReduceReference(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		val := func(l int) int32 { return int32((l*37)%19 - 9) }
		for _, mask := range testMasks {
			got := make([][6]int32, 32)
			require.NoError(t, launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
				l := t.Lane()
				if mask&(1<<l) == 0 {
					return
				}
				v := val(l)
				got[l] = [6]int32{
					gpu.ReduceAddSync(t, mask, v), gpu.ReduceMinSync(t, mask, v), gpu.ReduceMaxSync(t, mask, v),
					gpu.ReduceAndSync(t, mask, v), gpu.ReduceOrSync(t, mask, v), gpu.ReduceXorSync(t, mask, v),
				}
			}))
			part := mask & 0xffffffff
			want := [6]int32{
				refFold(part, val, func(a, b int32) int32 { return a + b }),
				refFold(part, val, func(a, b int32) int32 { return min(a, b) }),
				refFold(part, val, func(a, b int32) int32 { return max(a, b) }),
				refFold(part, val, func(a, b int32) int32 { return a & b }),
				refFold(part, val, func(a, b int32) int32 { return a | b }),
				refFold(part, val, func(a, b int32) int32 { return a ^ b }),
			}
			for l := range 32 {
				if part&(1<<l) != 0 {
					require.Equal(t, want, got[l], "mask %#x lane %d", mask, l)
				}
			}
		}
	})
}

func TestReduceEveryType(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	got := make([]float64, 32)
	gotU := make([]uint64, 32)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) {
		l := t.Lane()
		got[l] = gpu.ReduceAddSync(t, gpu.FullMask, float64(l)/2) + float64(gpu.ReduceMaxSync(t, gpu.FullMask, float32(l)))
		gotU[l] = gpu.ReduceAddSync(t, gpu.FullMask, ^uint64(0)) + uint64(gpu.ReduceMinSync(t, gpu.FullMask, uint32(l+5)))
	}))
	for l := range 32 {
		require.Equal(t, 31*32/4+31.0, got[l])
		require.Equal(t, ^uint64(0)-31+5, gotU[l], "uint64 sums wrap")
	}
}

// TestHalfOperations: Add, Min and Max combine Halves by value, so the
// reductions built on them (ReduceAddSync, ReduceMaxSync, Reduce on a
// tile) add and compare Halves as numbers, not as their bits.
func TestHalfOperations(t *testing.T) {
	t.Parallel()
	h := gpu.HalfFromFloat32
	require.Equal(t, h(2), gpu.Add(h(1), h(1)))
	require.Equal(t, h(-1), gpu.Min(h(-1), h(0.5)))
	require.Equal(t, h(0.5), gpu.Max(h(-1), h(0.5)))
	d := newDevice(t)
	out := gpu.Alloc[gpu.Half](d, "out", 3)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) {
		sum := gpu.ReduceAddSync(t, gpu.FullMask, h(1))
		top := gpu.ReduceMaxSync(t, gpu.FullMask, h(-float32(t.Lane())))
		half := gpu.Reduce(gpu.TiledPartition(t, 32), h(0.5), gpu.Add[gpu.Half])
		if t.Lane() == 0 {
			out.Store(t, 0, sum)
			out.Store(t, 1, top)
			out.Store(t, 2, half)
		}
	}))
	got := out.Host()
	require.Equal(t, []float32{32, 0, 16}, []float32{got[0].Float32(), got[1].Float32(), got[2].Float32()}, "lane 0's -0 is the largest")
}
