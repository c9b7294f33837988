package warp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

func TestInclusiveScan(t *testing.T) {
	for _, n := range blockSizes {
		in, out := run(t, n, small, func(th *gpu.Thread, v int32) int32 { return warp.InclusiveScan(th, v, gpu.Add[int32]) })
		for w, lanes := range warps(in) {
			var sum int32
			for l, v := range lanes {
				sum += v
				assert.Equal(t, sum, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}

func TestExclusiveScan(t *testing.T) {
	gen := func(r *rand.Rand) float64 { return float64(r.IntN(100)) }
	for _, n := range blockSizes {
		in, out := run(t, n, gen, func(th *gpu.Thread, v float64) float64 { return warp.ExclusiveScan(th, v, 7, gpu.Add[float64]) })
		for w, lanes := range warps(in) {
			sum := 7.0
			for l, v := range lanes {
				assert.Equal(t, sum, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
				sum += v
			}
		}
	}
}

// TestScanOrder checks that lanes combine in lane order with an op that
// is associative but not commutative: the left operand.
func TestScanOrder(t *testing.T) {
	first := func(a, _ uint32) uint32 { return a }
	for _, n := range blockSizes {
		gen := func(r *rand.Rand) uint32 { return r.Uint32() }
		in, out := run(t, n, gen, func(th *gpu.Thread, v uint32) uint32 { return warp.InclusiveScan(th, v, first) })
		for w, lanes := range warps(in) {
			for l := range lanes {
				assert.Equal(t, lanes[0], out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}

// TestWarpSize runs the scans on devices of other warp sizes, with a
// partial last warp and with a block smaller than a warp.
func TestWarpSize(t *testing.T) {
	for _, ws := range []int{4, 8, 64} {
		for _, n := range []int{2*ws + ws/2, ws - 1} {
			in, out := runOn(t, gpu.DeviceConfig{WarpSize: ws}, n, small, func(th *gpu.Thread, v int32) int32 {
				return warp.InclusiveScan(th, v, gpu.Add[int32])*1000 + warp.ExclusiveScan(th, v, 0, gpu.Max[int32])
			})
			for w, lanes := range warpsOf(in, ws) {
				var sum int32
				top := int32(0)
				for l, v := range lanes {
					sum += v
					assert.Equal(t, sum*1000+top, out[w*ws+l], "warp size %d, block %d, warp %d, lane %d", ws, n, w, l)
					top = max(top, v)
				}
			}
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, n := range blockSizes {
		in, out := run(t, n, small, func(th *gpu.Thread, v int32) int32 {
			if p, ok := warp.Prefix(th, v, gpu.Add[int32]); ok {
				return p
			}
			return -99999
		})
		for w, lanes := range warps(in) {
			want, sum := int32(-99999), int32(0)
			for l, v := range lanes {
				assert.Equal(t, want, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
				sum += v
				want = sum
			}
		}
	}
}
