package block_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// A block of 64 threads loads two items each, blocked, and turns them into
// running totals: each thread sums its items, the block scans the sums,
// and each thread carries its prefix through its items.
func Example() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	host := make([]int32, 128)
	for i := range host {
		host[i] = 1
	}
	buf := gpu.FromHost(d, "buf", host)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}}, func(t *gpu.Thread) {
		var items [2]int32
		block.LoadBlocked(t, buf, 0, items[:], 0)
		prefix, _ := block.ExclusiveScan(t, block.Temp[int32](t, "scan"), items[0]+items[1], 0, gpu.Add[int32])
		for j := range items {
			prefix += items[j]
			items[j] = prefix
		}
		block.StoreBlocked(t, buf, 0, items[:])
	})
	out := buf.Host()
	fmt.Println(out[:4], out[126:], err)
	// Output:
	// [1 2 3 4] [127 128] <nil>
}
