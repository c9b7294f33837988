package block_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

func TestRadixRank(t *testing.T) {
	for _, radix := range []int{1, 2, 16} {
		for _, n := range blockSizes {
			if radix > n {
				continue
			}
			gen := func(r *rand.Rand) int32 { return r.Int32N(int32(radix)+1) - 1 } // -1 is no key
			in, out := launch(t, n, gen, func(th *gpu.Thread, v int32) int32 {
				tmp := gpu.Shared[int32](th, "rank", block.RadixRankLen(th, radix))
				block.RadixRank(th, tmp, int(v), radix) // reuse the memory at once
				return int32(block.RadixRank(th, tmp, int(v), radix))
			})
			for b, vs := range blocks(in, n) {
				for r, want := range stableRanks(vs) {
					assert.Equal(t, want, out[b*n+r], "radix %d, block size %d, block %d, rank %d", radix, n, b, r)
				}
			}
		}
	}
}

// stableRanks returns each digit's place in a stable sort of the valid
// digits, -1 for the others.
func stableRanks(ds []int32) []int32 {
	out := make([]int32, len(ds))
	var place int32
	for d := range int32(17) {
		for i, v := range ds {
			if v == d {
				out[i], place = place, place+1
			}
		}
	}
	for i, v := range ds {
		if v < 0 {
			out[i] = -1
		}
	}
	return out
}

func TestRadixRankOffsets(t *testing.T) {
	const radix = 4
	gen := func(r *rand.Rand) int32 { return r.Int32N(radix) }
	in, out := launch(t, 96, gen, func(th *gpu.Thread, v int32) int32 {
		tmp := gpu.Shared[int32](th, "rank", block.RadixRankLen(th, radix))
		block.RadixRank(th, tmp, int(v), radix)
		if th.ThreadRank() < radix {
			return tmp.Load(th, th.ThreadRank()*th.Grid().Warps)
		}
		return 0
	})
	for b, vs := range blocks(in, 96) {
		var below [radix + 1]int32
		for _, v := range vs {
			for d := v + 1; d <= radix; d++ {
				below[d]++
			}
		}
		for d := range radix {
			assert.Equal(t, below[d], out[b*96+d], "block %d, digit %d", b, d)
		}
	}
}

func TestRadixRankBadRadix(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	err := launchErr(d, 8, func(th *gpu.Thread) {
		block.RadixRank(th, gpu.Shared[int32](th, "rank", 100), 0, 16)
	})
	assert.ErrorContains(t, err, "block.RadixRank: radix 16; want 1 to the block size 8")
}
