package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

func TestCopyInOut(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	b := gpu.FromHost(d, "v", []float64{1.5, -2, 3})
	require.Equal(t, []float64{1.5, -2, 3}, b.Host())
	require.NoError(t, b.CopyIn([]float64{4, 5, 6}))
	out := make([]float64, 3)
	require.NoError(t, b.CopyOut(out))
	require.Equal(t, []float64{4, 5, 6}, out)
	b.Fill(7)
	require.Equal(t, []float64{7, 7, 7}, b.Host())

	require.ErrorContains(t, b.CopyIn([]float64{1}), `CopyIn of 1 elements into global "v" of length 3`)
	require.ErrorContains(t, b.CopyOut(make([]float64, 4)), `CopyOut of global "v" with length 3 into 4 elements`)
	require.Equal(t, []float64{7, 7, 7}, b.Host(), "a failed copy changes nothing")
}

func TestEveryElemType(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	roundTrip(t, d, []int32{-1, 1 << 30})
	roundTrip(t, d, []uint32{1<<32 - 1, 0})
	roundTrip(t, d, []int64{-1 << 62, 5})
	roundTrip(t, d, []uint64{1<<64 - 1, 1})
	roundTrip(t, d, []float32{-1.25, 3e38})
	roundTrip(t, d, []float64{-1e300, 2.5})
}

// roundTrip copies vals in, doubles the element count with a kernel that
// copies each element with every load and store kind, and reads it back.
func roundTrip[T gpu.Elem](t *testing.T, d *gpu.Device, vals []T) {
	in := gpu.FromHost(d, "in", vals)
	out := gpu.Alloc[T](d, "out", 4*len(vals))
	n := len(vals)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, n, func(t *gpu.Thread) {
		i := t.ThreadRank()
		out.Store(t, i, in.Load(t, i))
		out.StoreVolatile(t, n+i, in.LoadVolatile(t, i))
		out.StoreRelease(t, 2*n+i, in.LoadAcquire(t, i, scope.Device), scope.Device)
		out.AtomicStore(t, 3*n+i, in.AtomicLoad(t, i, scope.Block), scope.Block)
	}))
	h := out.Host()
	for k := range 4 {
		require.Equal(t, vals, h[k*n:(k+1)*n])
	}
}

func TestMemoryIdentity(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	a := gpu.Alloc[float32](d, "a", 10)
	b := gpu.Alloc[uint64](d, "b", 3)
	ma, mb := a.Memory(), b.Memory()
	require.NotEqual(t, ma.ID, mb.ID)
	require.Equal(t, d.ID(), ma.DeviceID)
	require.Same(t, d, mb.Device())
	require.Equal(t, "float32", ma.Type)
	require.Equal(t, 4, ma.ElemSize)
	require.Equal(t, 8, mb.ElemSize)
	require.Equal(t, 40, ma.Bytes())
	require.Equal(t, gpu.GlobalSpace, ma.Space)
	require.Equal(t, -1, ma.Block)
	require.Zero(t, ma.Base%256, "cudaMalloc alignment")
	require.GreaterOrEqual(t, mb.Base, ma.Base+256, "allocations do not overlap")
	require.Equal(t, `global "a"`, ma.String())
}

func TestAllocNegativePanics(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	require.PanicsWithValue(t, `gpu: Alloc "x" with negative length -1`, func() { gpu.Alloc[int32](d, "x", -1) })
}

func TestZeroBuffer(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	var z gpu.Buffer[int32]
	require.Zero(t, z.Len())
	err := launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { z.Load(t, 0) })
	require.ErrorContains(t, err, "load index 0 of a zero Buffer")
}

func TestNegativeIndex(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int64](d, "x", 4)
	err := launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { x.AtomicCAS(t, -1, 0, 1, scope.Device) })
	require.ErrorContains(t, err, `atomicCAS index -1 out of range [0:4] of global "x"`)
}

// TestNoAllocs checks that the unobserved access path allocates nothing.
func TestNoAllocs(t *testing.T) {
	d := newDevice(t)
	x := gpu.Alloc[float32](d, "x", 64)
	var allocs float64
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) {
		allocs = testing.AllocsPerRun(100, func() {
			v := x.Load(t, 3)
			x.Store(t, 4, v)
			x.AtomicAdd(t, 5, 1, scope.Device)
			x.AtomicCAS(t, 6, 0, 1, scope.Block)
			x.LoadVolatile(t, 7)
		})
	}))
	require.Zero(t, allocs)
}

// TestAllocOnZeroDevice: Alloc rejects a Device not made by NewDevice, as
// Launch does, before allocating anything.
func TestAllocOnZeroDevice(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, `gpu: Alloc "x" on a Device not made by NewDevice`, func() { gpu.Alloc[int32](new(gpu.Device), "x", 1) })
}

// TestZeroBufferCopy: copying into or out of a zero Buffer says so,
// rather than naming a <nil> memory.
func TestZeroBufferCopy(t *testing.T) {
	t.Parallel()
	var z gpu.Buffer[int32]
	require.EqualError(t, z.CopyOut(make([]int32, 2)), "gpu: CopyOut of a zero Buffer with length 0 into 2 elements")
	require.EqualError(t, z.CopyIn(make([]int32, 2)), "gpu: CopyIn of 2 elements into a zero Buffer of length 0")
	require.NoError(t, z.CopyOut(nil))
}
