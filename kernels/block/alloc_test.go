package block_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/kernels/warp"
)

// collectives is the number of warp collectives one round of
// TestNoAllocs's primitives executes: one in ExclusiveScan and in each
// reduce, two in RadixRank.
const collectives = 5

// TestNoAllocs checks that the collectives allocate nothing of their own:
// twenty rounds of them cost a launch what twenty rounds of as many
// bare warp shuffles do (the runtime's warp collectives are what
// allocates, not the primitives around them).
func TestNoAllocs(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	buf := gpu.Alloc[int32](d, "buf", 4*64)
	primitives := func(t *gpu.Thread, v *[4]int32) {
		block.LoadStriped(t, buf, 0, v[:], 0)
		s, _ := block.ExclusiveScan(t, block.Temp[int32](t, "tmp"), v[0], 0, gpu.Add[int32])
		s += block.Reduce(t, block.Temp[int32](t, "tmp"), v[1], gpu.Max[int32]) + warp.Reduce(t, v[2], gpu.Add[int32])
		block.Histogram(t, gpu.Shared[int32](t, "bins", 16), []int{int(s) & 15})
		v[3] = int32(block.RadixRank(t, gpu.Shared[int32](t, "rank", block.RadixRankLen(t, 16)), int(s)&15, 16))
		block.StoreBlocked(t, buf, 0, v[:])
	}
	bare := func(t *gpu.Thread, v *[4]int32) {
		for range collectives {
			v[0] = gpu.ShflUpSync(t, gpu.FullMask, v[0], 1, 32)
		}
	}
	launch := func(n int, round func(*gpu.Thread, *[4]int32)) float64 {
		return testing.AllocsPerRun(3, func() {
			err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}}, func(t *gpu.Thread) {
				var v [4]int32
				for range n {
					round(t, &v)
				}
			})
			if err != nil {
				panic(err)
			}
		})
	}
	own := launch(21, primitives) - launch(1, primitives)
	runtime := launch(21, bare) - launch(1, bare)
	require.InDelta(t, runtime, own, 10, "20 rounds of the primitives allocate what their warp collectives do")
}
