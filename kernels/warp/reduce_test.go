package warp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

func TestReduce(t *testing.T) {
	for _, n := range blockSizes {
		in, out := run(t, n, small, func(th *gpu.Thread, v int32) int32 { return warp.Reduce(th, v, gpu.Max[int32]) })
		for w, lanes := range warps(in) {
			want := lanes[0]
			for _, v := range lanes {
				want = max(want, v)
			}
			for l := range lanes {
				assert.Equal(t, want, out[w*32+l], "block %d, warp %d, lane %d", n, w, l)
			}
		}
	}
}
