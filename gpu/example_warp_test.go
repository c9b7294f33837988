package gpu_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// Example_warpShuffleReduce sums 1024 integers with warp shuffles: each
// warp halves its values with __shfl_down_sync five times, no shared
// memory and no __syncthreads, and lane 0 adds the warp's sum to the
// total.
func Example_warpShuffleReduce() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	const n = 1024
	host := make([]int32, n)
	for i := range host {
		host[i] = int32(i)
	}
	in, total := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "total", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: n / 256}, Block: gpu.Dim3{X: 256}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		v := in.Load(t, t.GlobalID())
		for offset := 16; offset > 0; offset /= 2 {
			v += gpu.ShflDownSync(t, gpu.FullMask, v, offset, 32)
		}
		if t.Lane() == 0 {
			total.AtomicAdd(t, 0, v, scope.Device)
		}
	})
	fmt.Println(err, total.Host()[0], n*(n-1)/2)
	// Output: <nil> 523776 523776
}

// Example_gridReduce sums 8192 integers in one cooperative launch: every
// block writes its partial sum, the whole grid meets at
// cg::this_grid().sync(), and thread 0 of block 0 adds the partials.
func Example_gridReduce() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	const blocks, bs = 32, 256
	host := make([]int64, blocks*bs)
	for i := range host {
		host[i] = int64(i)
	}
	in := gpu.FromHost(d, "in", host)
	partial, total := gpu.Alloc[int64](d, "partial", blocks), gpu.Alloc[int64](d, "total", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: bs}, Cooperative: true}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		warp := gpu.TiledPartition(t, 32)
		v := gpu.Reduce(warp, in.Load(t, t.GlobalID()), gpu.Add[int64])
		if warp.ThreadRank() == 0 {
			partial.AtomicAdd(t, t.BlockRank(), v, scope.Device)
		}
		gpu.ThisGrid(t).Sync()
		if t.GlobalID() == 0 {
			var sum int64
			for b := range blocks {
				sum += partial.Load(t, b)
			}
			total.Store(t, 0, sum)
		}
	})
	fmt.Println(err, total.Host()[0], blocks*bs*(blocks*bs-1)/2)
	// Output: <nil> 33550336 33550336
}

// Example_divergence shows the error of a barrier some threads skip: the
// barrier's line and the threads on each side.
func Example_divergence() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		if t.ThreadRank() >= 48 {
			return // these threads never reach the barrier
		}
		t.SyncThreads()
	})
	var de *gpu.DivergenceError
	if errors.As(err, &de) {
		fmt.Println(de.Barrier, de.Site.Line() > 0, de.Waiting[0], de.Waiting[len(de.Waiting)-1], de.Exited)
	}
	// Output: syncthreads true 0 47 [48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63]
}
