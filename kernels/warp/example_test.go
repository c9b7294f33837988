package warp_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

// Each lane of a warp holds its lane number; the warp sums them and each
// lane takes its running total.
func Example() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	sums := gpu.Alloc[int32](d, "sums", 8)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}}, func(t *gpu.Thread) {
		v := int32(t.Lane())
		total := warp.Reduce(t, v, gpu.Add[int32])
		running := warp.InclusiveScan(t, v, gpu.Add[int32])
		if t.Lane() < 8 {
			sums.Store(t, t.Lane(), total*100+running)
		}
	})
	fmt.Println(sums.Host(), err)
	// Output:
	// [49600 49601 49603 49606 49610 49615 49621 49628] <nil>
}
