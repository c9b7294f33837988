package block_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

func TestHistogram(t *testing.T) {
	const bins = 7
	gen := func(r *rand.Rand) int32 { return r.Int32N(bins+1) - 1 } // -1 is no sample
	for _, n := range blockSizes {
		in, out := launch(t, n, gen, func(th *gpu.Thread, v int32) int32 {
			h := gpu.Shared[uint32](th, "bins", bins)
			block.Histogram(th, h, []int{int(v), int(v)})
			if th.ThreadRank() < bins {
				return int32(h.Load(th, th.ThreadRank()))
			}
			return 0
		})
		for b, vs := range blocks(in, n) {
			var want [bins]int32
			for _, v := range vs {
				if v >= 0 {
					want[v] += 2
				}
			}
			for r := range min(n, bins) {
				assert.Equal(t, want[r], out[b*n+r], "block size %d, block %d, bin %d", n, b, r)
			}
		}
	}
}

// TestHistogramAgainAfterReading: a block reads its counts and calls
// Histogram on the same bins again, with no barrier of its own between:
// Histogram's first barrier orders the reads before its zeroing, so the
// detector (launch runs under racetest) reports nothing, and the second
// counts are the second call's alone.
func TestHistogramAgainAfterReading(t *testing.T) {
	const bins = 5
	gen := func(r *rand.Rand) int32 { return r.Int32N(bins) }
	for _, n := range blockSizes {
		in, out := launch(t, n, gen, func(th *gpu.Thread, v int32) int32 {
			h := gpu.Shared[uint32](th, "bins", bins)
			block.Histogram(th, h, []int{int(v)})
			first := h.Load(th, int(v)) // at least this thread's sample
			block.Histogram(th, h, []int{int(v), int(v)})
			return int32(h.Load(th, int(v)) - 2*first)
		})
		for i := range in {
			assert.Zero(t, out[i], "block size %d, thread %d: the second count is twice the first", n, i)
		}
	}
}

func TestHistogramBadSample(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	err := launchErr(d, 32, func(th *gpu.Thread) {
		block.Histogram(th, gpu.Shared[int32](th, "bins", 4), []int{th.ThreadRank()})
	})
	assert.ErrorContains(t, err, "thread (4,0,0)")
	assert.ErrorContains(t, err, `"bins"`)
}
