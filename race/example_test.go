package race_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// A detector observes a launch; afterwards its reports say what raced,
// where, and why. Here threads of two warps of a block swap values through
// shared memory with no __syncthreads: thread 0 reads s[32] before thread
// 32 writes it, and thread 32 reads s[0] after thread 0 wrote it, each
// unordered. (The Fibers executor runs the block's threads in order, so
// the output is the same every run.)
func ExampleDetector() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	det := race.New(race.Options{History: true})
	cfg := gpu.LaunchConfig{Name: "neighbours", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Observer: det}
	_ = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		s := gpu.Shared[int32](t, "s", 64)
		s.Store(t, t.ThreadRank(), 1)
		// t.SyncThreads() belongs here.
		_ = s.Load(t, t.ThreadRank()^32)
	})
	for _, r := range det.Reports() {
		fmt.Println(r.Kind, "on", r.Element())
		fmt.Println(r.Current.What(), "by", r.Current.Who())
		fmt.Println(r.Previous.What(), "by", r.Previous.Who())
	}
	// Output:
	// missing-block-fence on shared "s"[32] of block (0,0,0)
	// weak store by thread (32,0,0) of block (0,0,0)
	// weak load by thread (0,0,0) of block (0,0,0)
	// missing-block-fence on shared "s"[0] of block (0,0,0)
	// weak load by thread (32,0,0) of block (0,0,0)
	// weak store by thread (0,0,0) of block (0,0,0)
}

// ExampleConfig lists the detector configurations a benchmark compares and
// makes the unoptimized one.
func ExampleConfig() {
	fmt.Println(race.Configs())
	opt, err := race.Config("plain")
	if err != nil {
		panic(err)
	}
	det := race.New(opt)
	fmt.Println(det.Stats().Checks)
	// Output:
	// [off central plain coalesce backoff opt exact]
	// 0
}
