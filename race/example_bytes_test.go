package race_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// A byte-flag kernel, as in MST's `bool included[]`: each thread sets its
// own flag, then, after a barrier, reads its neighbours'. Neighbouring
// flags share a 4-byte word, yet the default detector tracks each byte
// alone: the kernel is clean. Without the barrier (inject), the read of a
// neighbour's flag races with its write, and the report names the byte:
// here thread 0 reads flag 1 before thread 1 of its warp sets it, with no
// __syncwarp between. (The Fibers executor runs a block's threads in
// order, so the output is the same every run.)
func Example_byteFlags() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	const n = 64
	included := gpu.Alloc[uint8](d, "included", n)
	count := gpu.Alloc[int32](d, "count", n)
	kernel := func(inject bool) gpu.Kernel {
		return func(t *gpu.Thread) {
			i := t.ThreadRank()
			included.Store(t, i, uint8(i%3/2)) // every third thread's flag is set
			if !inject {
				t.SyncThreads()
			}
			c := int32(included.Load(t, (i+1)%n)) + int32(included.Load(t, (i+n-1)%n))
			count.Store(t, i, c)
		}
	}
	for _, inject := range []bool{false, true} {
		det := race.New(race.Options{})
		cfg := gpu.LaunchConfig{Name: "flags", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: n}, Observer: det}
		_ = d.Launch(context.Background(), cfg, kernel(inject))
		fmt.Println("inject:", inject, "races:", len(det.Reports()))
		if rs := det.Reports(); len(rs) > 0 {
			fmt.Println(rs[0].Kind, "on", rs[0].Element())
		}
	}
	// Output:
	// inject: false races: 0
	// inject: true races: 3
	// missing-syncwarp on global "included"[1]
}
