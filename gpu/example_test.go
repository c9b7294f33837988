package gpu_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// ExampleDevice_Launch computes SAXPY, y = a*x + y, with one thread per
// element, as the first CUDA program in every tutorial does.
func ExampleDevice_Launch() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	const n = 1000
	hx, hy := make([]float32, n), make([]float32, n)
	for i := range n {
		hx[i], hy[i] = float32(i), 1
	}
	x, y := gpu.FromHost(d, "x", hx), gpu.FromHost(d, "y", hy)
	const a = 2
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: (n + 255) / 256}, Block: gpu.Dim3{X: 256}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		if i := t.GlobalID(); i < n {
			y.Store(t, i, a*x.Load(t, i)+y.Load(t, i))
		}
	})
	out := y.Host()
	fmt.Println(err, out[0], out[1], out[999])
	// Output: <nil> 1 3 1999
}

// Example_blockReduce sums 4096 integers: each block of 256 threads reduces
// its slice in shared memory by halving, with __syncthreads between steps,
// and thread 0 adds the block's sum to the total with a device-scope atomic.
func Example_blockReduce() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	const n, bs = 4096, 256
	host := make([]int32, n)
	for i := range host {
		host[i] = int32(i)
	}
	in, total := gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "total", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: n / bs}, Block: gpu.Dim3{X: bs}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		s := gpu.Shared[int32](t, "partial", bs)
		r := t.ThreadRank()
		s.Store(t, r, in.Load(t, t.GlobalID()))
		t.SyncThreads()
		for stride := bs / 2; stride > 0; stride /= 2 {
			if r < stride {
				s.Store(t, r, s.Load(t, r)+s.Load(t, r+stride))
			}
			t.SyncThreads()
		}
		if r == 0 {
			total.AtomicAdd(t, 0, s.Load(t, 0), scope.Device)
		}
	})
	fmt.Println(err, total.Host()[0], n*(n-1)/2)
	// Output: <nil> 8386560 8386560
}

// ExampleBuffer_ReadOnly translates a kernel whose input is a
// const float* __restrict__ parameter: the kernel reads x through a
// read-only view and writes only y.
func ExampleBuffer_ReadOnly() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	defer d.Close()
	x := gpu.FromHost(d, "x", []float32{1, 2, 3, 4})
	y := gpu.Alloc[float32](d, "y", 4)
	in := x.ReadOnly() // __global__ void scale(const float* __restrict__ in, float* out)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 4}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		i := t.GlobalID()
		y.Store(t, i, 10*in.Load(t, i))
	})
	fmt.Println(err, y.Host())
	// Output: <nil> [10 20 30 40]
}
