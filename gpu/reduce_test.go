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
