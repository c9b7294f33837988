package gpu_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestNarrowElemTypes: 1- and 2-byte elements and Halves round-trip
// through the host and every load and store kind, at odd lengths, so
// elements share words with neighbours.
func TestNarrowElemTypes(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	roundTrip(t, d, []int8{-1, 127, -128, 5, 0})
	roundTrip(t, d, []uint8{255, 0, 1, 128, 7, 9, 11})
	roundTrip(t, d, []int16{-1, 32767, -32768})
	roundTrip(t, d, []uint16{65535, 0, 1})
	roundTrip(t, d, []gpu.Half{gpu.HalfFromFloat32(1.5), gpu.HalfNegInf, gpu.HalfMax})
}

// TestNarrowNeighbourThreads: threads of several blocks, run as
// goroutines, each store their own byte of a buffer many times with
// plain stores; no store undoes a neighbour's.
func TestNarrowNeighbourThreads(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	const n, rounds = 64, 20000
	x := gpu.Alloc[uint8](d, "x", n)
	require.NoError(t, launch1D(d, gpu.Goroutines, 4, n/4, func(t *gpu.Thread) {
		i := t.GlobalID()
		for range rounds {
			x.Store(t, i, x.Load(t, i)+1)
		}
	}))
	for i, v := range x.Host() {
		require.Equal(t, uint8(rounds&0xff), v, "byte %d", i)
	}
}

// TestNarrowAtomics: the atomics on narrow elements: CAS on 16 bits
// (CUDA's atomicCAS on unsigned short), and the others libcu++'s
// atomic_ref offers on 1- and 2-byte types, wrapping in their width.
func TestNarrowAtomics(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	c := gpu.Alloc[uint16](d, "c", 3)
	b := gpu.Alloc[int8](d, "b", 3)
	require.NoError(t, launch1D(d, gpu.Goroutines, 2, 64, func(t *gpu.Thread) {
		for { // a CAS-loop increment of c[1], beside c[0] and c[2]
			old := c.AtomicLoad(t, 1, scope.Device)
			if c.AtomicCAS(t, 1, old, old+1, scope.Device) == old {
				break
			}
		}
		c.AtomicAdd(t, 2, 1000, scope.Device) // wraps: 128000 mod 65536
		b.AtomicAdd(t, 0, 1, scope.Device)    // wraps: 128 is -128
		b.AtomicMin(t, 1, int8(-t.GlobalID()), scope.Device)
		b.AtomicOr(t, 2, int8(1)<<(t.GlobalID()%7), scope.Device)
	}))
	require.Equal(t, []uint16{0, 128, 128000 % 65536}, c.Host())
	require.Equal(t, []int8{-128, -127, 0x7f}, b.Host())
}

// TestHalfAtomics: atomicAdd on a Half adds as floats, rounding to a
// Half; min and max compare as floats; bitwise atomics fail the thread,
// as on float32.
func TestHalfAtomics(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	h := gpu.FromHost(d, "h", []gpu.Half{0, gpu.HalfFromFloat32(2048), 0, 0})
	require.NoError(t, launch1D(d, gpu.Goroutines, 2, 128, func(t *gpu.Thread) {
		h.AtomicAdd(t, 0, gpu.HalfFromFloat32(0.5), scope.Device)
		h.AtomicAdd(t, 1, gpu.HalfFromFloat32(1), scope.Device) // 2049 is no Half: rounds to even, 2048
		h.AtomicMin(t, 2, gpu.HalfFromFloat32(-float32(t.GlobalID())), scope.Device)
		h.AtomicMax(t, 3, gpu.HalfFromFloat32(float32(t.GlobalID())/4), scope.Device)
	}))
	got := h.Host()
	require.Equal(t, []float32{128, 2048, -255, 63.75}, []float32{got[0].Float32(), got[1].Float32(), got[2].Float32(), got[3].Float32()})
	err := launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { h.AtomicOr(t, 0, 1, scope.Device) })
	require.ErrorContains(t, err, `atomicOr is not defined on gpu.Half buffer "h"`)
}

// TestNarrowShared: a block's shared array of bytes, one per thread
// (an odd count, so the last word is partly used), set by each thread and
// read by every thread after a barrier.
func TestNarrowShared(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	const n = 37
	out := gpu.Alloc[int32](d, "out", 2*n)
	require.NoError(t, launch1D(d, gpu.Fibers, 2, n, func(t *gpu.Thread) {
		flags := gpu.Shared[uint8](t, "flags", n)
		halves := gpu.Shared[gpu.Half](t, "halves", n)
		flags.Store(t, t.ThreadRank(), uint8(t.ThreadRank()%2))
		halves.Store(t, t.ThreadRank(), gpu.HalfFromFloat32(0.25))
		t.SyncThreads()
		sum, hs := int32(0), float32(0)
		for i := range n {
			sum += int32(flags.Load(t, i))
			hs += halves.Load(t, i).Float32()
		}
		out.Store(t, t.GlobalID(), sum*100+int32(hs*4))
	}))
	for i, v := range out.Host() {
		require.Equal(t, int32(18*100+n), v, "thread %d", i)
	}
}

// TestDynamicSharedBytes: byte and word views of dynamic shared memory
// alias in the hardware's byte order.
func TestDynamicSharedBytes(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	out := gpu.Alloc[uint32](d, "out", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 4}, DynamicShared: 8}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		gpu.DynamicShared[uint8](t).Store(t, t.ThreadRank(), uint8(t.ThreadRank()+1))
		t.SyncThreads()
		if t.ThreadRank() == 0 {
			out.Store(t, 0, gpu.DynamicShared[uint32](t).Load(t, 0))
		}
	}))
	require.Equal(t, []uint32{binary.NativeEndian.Uint32([]byte{1, 2, 3, 4})}, out.Host())
}
