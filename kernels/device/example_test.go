package device_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
	"github.com/warpguard/warpguard/race"
)

// A pipeline of a user's kernel and two primitives, every launch checked
// by one race detector: the kernel squares the elements, a scan sums them,
// and a sort orders the squares.
func Example() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	det := race.New(race.Options{})
	cfg := gpu.LaunchConfig{Observer: det}

	x := gpu.FromHost(d, "x", []int32{3, -1, 4, -1, 5, -9, 2, 6})
	sq := cfg
	sq.Grid, sq.Block = gpu.Dim3{X: 1}, gpu.Dim3{X: x.Len()}
	_ = d.Launch(ctx, sq, func(t *gpu.Thread) {
		v := x.Load(t, t.ThreadRank())
		x.Store(t, t.ThreadRank(), v*v)
	})
	sums := gpu.Alloc[int32](d, "sums", x.Len())
	err1 := device.InclusiveScan(ctx, d, cfg, x, sums, gpu.Add[int32])
	err2 := device.SortKeys(ctx, d, cfg, x)
	fmt.Println(sums.Host(), x.Host(), err1, err2, len(det.Reports()), "races")
	// Output:
	// [9 10 26 27 52 133 137 173] [1 1 4 9 16 25 36 81] <nil> <nil> 0 races
}

func ExampleSortPairs() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	keys := gpu.FromHost(d, "keys", []int64{30, -10, 20, -10, 30})
	vals := gpu.FromHost(d, "vals", []float32{0.0, 0.1, 0.2, 0.3, 0.4})
	err := device.SortPairs(ctx, d, gpu.LaunchConfig{}, keys, vals)
	fmt.Println(keys.Host(), vals.Host(), err)
	// Output:
	// [-10 -10 20 30 30] [0.1 0.3 0.2 0 0.4] <nil>
}

func ExampleSelect() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []uint32{5, 12, 7, 30, 1, 44})
	out := gpu.Alloc[uint32](d, "out", in.Len())
	n, err := device.Select(ctx, d, gpu.LaunchConfig{}, in, out, func(v uint32) bool { return v > 10 })
	fmt.Println(out.Host()[:n], err)
	// Output:
	// [12 30 44] <nil>
}

func ExampleHistogramEven() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []float64{0.1, 0.5, 0.55, 0.9, 1.5, -2})
	hist := gpu.Alloc[int32](d, "hist", 4)
	err := device.HistogramEven(ctx, d, gpu.LaunchConfig{}, in, hist, 0, 1)
	fmt.Println(hist.Host(), err)
	// Output:
	// [1 0 2 1] <nil>
}

func ExampleRunLengthEncode() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []int32{7, 7, 7, 2, 9, 9})
	unique, counts := gpu.Alloc[int32](d, "unique", 6), gpu.Alloc[int32](d, "counts", 6)
	runs, err := device.RunLengthEncode(ctx, d, gpu.LaunchConfig{}, in, unique, counts)
	fmt.Println(unique.Host()[:runs], counts.Host()[:runs], err)
	// Output:
	// [7 2 9] [3 1 2] <nil>
}

func ExampleSegmentedReduce() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []int32{1, 2, 3, 4, 5, 6})
	offsets := gpu.FromHost(d, "offsets", []int32{0, 2, 2, 6})
	out := gpu.Alloc[int32](d, "out", 3)
	err := device.SegmentedReduce(ctx, d, gpu.LaunchConfig{}, in, offsets, out, 0, gpu.Max[int32])
	fmt.Println(out.Host(), err)
	// Output:
	// [2 0 6] <nil>
}

func ExamplePartition() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []int32{1, 2, 3, 4, 5, 6})
	out := gpu.Alloc[int32](d, "out", 6)
	n, err := device.Partition(ctx, d, gpu.LaunchConfig{}, in, out, func(v int32) bool { return v%3 == 0 })
	fmt.Println(n, out.Host(), err)
	// Output:
	// 2 [3 6 1 2 4 5] <nil>
}

func ExampleReduce() {
	ctx := context.Background()
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.FromHost(d, "in", []float32{2.5, -1, 8, 3})
	out := gpu.Alloc[float32](d, "out", 1)
	err := device.Reduce(ctx, d, gpu.LaunchConfig{}, in, out, -1e9, gpu.Max[float32])
	fmt.Println(out.Host(), err)
	// Output:
	// [8] <nil>
}
