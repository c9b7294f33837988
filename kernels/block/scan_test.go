package block_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

func launchErr(d *gpu.Device, n int, k gpu.Kernel) error {
	return d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: n}}, k)
}

func TestInclusiveScan(t *testing.T) {
	for _, n := range blockSizes {
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			incl, agg := block.InclusiveScan(th, block.Temp[int32](th, "tmp"), v, gpu.Add[int32])
			return incl*1000 + agg
		})
		for b, vs := range blocks(in, n) {
			var total, sum int32
			for _, v := range vs {
				total += v
			}
			for r, v := range vs {
				sum += v
				assert.Equal(t, sum*1000+total, out[b*n+r], "block size %d, block %d, rank %d", n, b, r)
			}
		}
	}
}

func TestExclusiveScan(t *testing.T) {
	for _, n := range blockSizes {
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			tmp := block.Temp[int32](th, "tmp")
			excl, _ := block.ExclusiveScan(th, tmp, v, 5, gpu.Add[int32])
			_, agg := block.ExclusiveScan(th, tmp, v, 5, gpu.Max[int32])
			return excl*1000 + agg
		})
		for b, vs := range blocks(in, n) {
			top := vs[0]
			for _, v := range vs {
				top = max(top, v)
			}
			sum := int32(5)
			for r, v := range vs {
				assert.Equal(t, sum*1000+top, out[b*n+r], "block size %d, block %d, rank %d", n, b, r)
				sum += v
			}
		}
	}
}

// TestScanOrder checks that threads combine in rank order with an op that
// is associative but not commutative.
func TestScanOrder(t *testing.T) {
	last := func(_, b int32) int32 { return b }
	for _, n := range blockSizes {
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			excl, _ := block.ExclusiveScan(th, block.Temp[int32](th, "tmp"), v, -1, last)
			return excl
		})
		for b, vs := range blocks(in, n) {
			for r := range vs {
				want := int32(-1)
				if r > 0 {
					want = vs[r-1]
				}
				assert.Equal(t, want, out[b*n+r], "block size %d, block %d, rank %d", n, b, r)
			}
		}
	}
}

func TestPrefix(t *testing.T) {
	for _, n := range blockSizes {
		in, out := launch(t, n, small, func(th *gpu.Thread, v int32) int32 {
			p, ok, _ := block.Prefix(th, block.Temp[int32](th, "tmp"), v, gpu.Add[int32])
			if !ok {
				return -99999
			}
			return p
		})
		for b, vs := range blocks(in, n) {
			want := int32(-99999)
			var sum int32
			for r, v := range vs {
				assert.Equal(t, want, out[b*n+r], "block size %d, block %d, rank %d", n, b, r)
				sum += v
				want = sum
			}
		}
	}
}
