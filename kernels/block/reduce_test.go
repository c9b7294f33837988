package block_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

func TestReduce(t *testing.T) {
	for _, n := range blockSizes {
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			tmp := block.Temp[int32](th, "tmp")
			s := block.Reduce(th, tmp, v, gpu.Add[int32])
			return s - block.Reduce(th, tmp, v, gpu.Min[int32]) // reuse at once
		})
		for b, vs := range blocks(in, n) {
			sum, lo := int32(0), vs[0]
			for _, v := range vs {
				sum, lo = sum+v, min(lo, v)
			}
			for r := range vs {
				assert.Equal(t, sum-lo, out[b*n+r], "block size %d, block %d, rank %d", n, b, r)
			}
		}
	}
}

func TestReduceShortTemp(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	err := launchErr(d, 64, func(th *gpu.Thread) {
		block.Reduce(th, gpu.Shared[int32](th, "tmp", 1), 1, gpu.Add[int32])
	})
	assert.ErrorContains(t, err, `block.Reduce: shared memory shared "tmp" of block (0,0,0) has 1 elements; it needs 2`)
}

func TestReducePartial(t *testing.T) {
	for _, n := range blockSizes {
		valid := max(1, n*2/3)
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			if th.ThreadRank() >= valid {
				v = 1 << 20 // must not count
			}
			return block.ReducePartial(th, block.Temp[int32](th, "tmp"), v, valid, gpu.Add[int32])
		})
		for b, vs := range blocks(in, n) {
			var sum int32
			for _, v := range vs[:valid] {
				sum += v
			}
			assert.Equal(t, sum, out[b*n], "block size %d, block %d", n, b)
		}
	}
}
