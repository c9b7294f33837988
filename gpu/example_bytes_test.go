package gpu_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// Byte elements are CUDA's char and bool arrays: each thread stores its
// own byte, as `bool flags[n]; flags[i] = ...;` does, and no store
// disturbs a neighbour's in the same word.
func ExampleBuffer_bytes() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	odd := gpu.Alloc[uint8](d, "odd", 10)
	_ = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 10}}, func(t *gpu.Thread) {
		odd.Store(t, t.ThreadRank(), uint8(t.ThreadRank()%2))
	})
	fmt.Println(odd.Host())
	// Output: [0 1 0 1 0 1 0 1 0 1]
}

// Halves are CUDA's __half: convert with HalfFromFloat32 and Float32
// (__float2half, __half2float); AtomicAdd on a Half buffer is CUDA's
// atomicAdd(__half*, __half), rounding each sum to a Half.
func ExampleHalfFromFloat32() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	fmt.Printf("%#04x %#04x %v\n", uint16(gpu.HalfFromFloat32(1)), uint16(gpu.HalfFromFloat32(-2)), gpu.HalfFromFloat32(0.1))
	sum := gpu.Alloc[gpu.Half](d, "sum", 1)
	_ = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}}, func(t *gpu.Thread) {
		sum.AtomicAdd(t, 0, gpu.HalfFromFloat32(0.25), scope.Device)
	})
	fmt.Println(sum.Host()[0].Float32())
	// Output:
	// 0x3c00 0xc000 0.099975586
	// 64
}

// A view is CUDA's pointer plus offset: a kernel given x.Slice(2, 6)
// sees x+2, four elements long, and a partial copy is a copy into a view
// (cudaMemcpy(x+2, host, 4*sizeof(int), ...)).
func ExampleBuffer_Slice() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	x := gpu.Alloc[int32](d, "x", 8)
	mid := x.Slice(2, 6)
	_ = mid.CopyIn([]int32{1, 2, 3, 4})
	x.Slice(6, 8).Fill(-1)
	_ = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 4}}, func(t *gpu.Thread) {
		mid.Store(t, t.ThreadRank(), 10*mid.Load(t, t.ThreadRank()))
	})
	fmt.Println(x.Host(), mid.Offset(), mid.Len())
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		mid.Load(t, 4)
	})
	fmt.Println(err)
	// Output:
	// [0 0 10 20 30 40 -1 -1] 2 4
	// gpu: kernel: thread (0,0,0) of block (0,0,0) (global thread 0) at gpu/example_bytes_test.go:57: load index 4 out of range [0:4] of view [2,6) of global "x"
}

// Copy is cudaMemcpy device-to-device: here the first three of a
// kernel's outputs go to a buffer of their own without a trip through
// the host.
func ExampleCopy() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	out := gpu.FromHost(d, "out", []float32{5, 7, 9, 0, 0})
	top := gpu.Alloc[float32](d, "top", 3)
	fmt.Println(gpu.Copy(top, out.Slice(0, 3)), top.Host())
	fmt.Println(gpu.Copy(top, out))
	// Output:
	// <nil> [5 7 9]
	// gpu: Copy of global "out" of length 5 into global "top" of length 3
}
