package gpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestSharedIsolation gives every block the same shared array name: each
// block must see only its own values, and start from zero.
func TestSharedIsolation(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const blocks, bs = 40, 64 // more blocks than one slot, so slots are reused
		out := gpu.Alloc[int32](d, "out", blocks*bs)
		require.NoError(t, launch1D(d, ex, blocks, bs, func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", bs)
			r := t.ThreadRank()
			stale := s.Load(t, r)
			t.SyncThreads()
			s.Store(t, r, int32(t.BlockRank())+stale)
			t.SyncThreads()
			out.Store(t, t.GlobalID(), s.Load(t, bs-1-r))
		}))
		for i, v := range out.Host() {
			require.Equal(t, int32(i/bs), v, "thread %d", i)
		}
	})
}

func TestSharedIdentity(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	mems := make([]*gpu.Memory, 4)
	require.NoError(t, launch1D(d, gpu.Fibers, 2, 2, func(t *gpu.Thread) {
		a := gpu.Shared[float64](t, "a", 3)
		b := gpu.Shared[int32](t, "b", 5)
		if t.ThreadRank() == 0 {
			mems[2*t.BlockRank()], mems[2*t.BlockRank()+1] = a.Memory(), b.Memory()
		}
	}))
	require.Equal(t, gpu.SharedSpace, mems[0].Space)
	require.Equal(t, 1, mems[2].Block)
	require.Equal(t, uint64(0), mems[0].Base)
	require.Equal(t, uint64(32), mems[1].Base, "24 bytes rounded up to 16-byte alignment")
	require.NotEqual(t, mems[0].ID, mems[2].ID, "each block's instance is its own memory")
	require.Equal(t, `shared "a" of block (1,0,0)`, mems[2].String())
}

func TestSharedMismatch(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	declLine := line() + 5 // the float32 declaration
	err := launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
			gpu.Shared[int32](t, "s", 8)
		} else {
			gpu.Shared[float32](t, "s", 8)
		}
	})
	require.ErrorContains(t, err, fmt.Sprintf(`thread (1,0,0) of block (0,0,0) (global thread 1) at %s: shared array`, siteOf(int64(declLine)))+` "s" declared as [8]float32 here but as [8]int32 by another thread of the block`)
	err = launch1D(d, gpu.Goroutines, 1, 2, func(t *gpu.Thread) { gpu.Shared[int32](t, "s", 8+t.ThreadRank()) })
	require.ErrorContains(t, err, `declared as`)
}

func TestSharedTooLarge(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{SharedMemPerBlock: 1024})
	require.NoError(t, err)
	closeAtEnd(t, d)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, DynamicShared: 512}
	err = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		gpu.Shared[float64](t, "ok", 32)  // 256 bytes: fits
		gpu.Shared[float64](t, "big", 64) // 512 more: does not
	})
	require.ErrorContains(t, err, `shared array "big" of 64 float64 needs 512 bytes; the block has 256 of 1024 bytes left`)
}

func TestDynamicShared(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		out := gpu.Alloc[uint32](d, "out", 2)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 4}, DynamicShared: 64, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			words := gpu.DynamicShared[uint64](t)
			halves := gpu.DynamicShared[uint32](t)
			if words.Len() != 8 || halves.Len() != 16 {
				panic("wrong view length")
			}
			if t.ThreadRank() == 0 {
				words.Store(t, 1, 0x0000_0002_0000_0001+uint64(t.BlockRank()))
			}
			t.SyncThreads()
			if t.ThreadRank() == 3 {
				// The two views alias: element 1 of the uint64 view is
				// elements 2 and 3 of the uint32 view (little-endian).
				out.Store(t, t.BlockRank(), halves.Load(t, 2)+halves.Load(t, 3)*10)
			}
		}))
		require.Equal(t, []uint32{21, 22}, out.Host())
	})
}

func TestSharedNegativeLength(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	err := launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) { gpu.Shared[int32](t, "s", -100) })
	require.ErrorContains(t, err, fmt.Sprintf(`thread (0,0,0) of block (0,0,0) (global thread 0) and 1 other thread at %s: shared array "s" with negative length -100`, siteOf(int64(line()-1))))
	var pe *gpu.PanicError
	require.NotErrorAs(t, err, &pe, "a clear error, not a runtime panic")
}

// TestHostCannotReachShared: a shared array's Buffer that escaped its
// kernel is refused by every host operation, which cannot reach a
// block's shared memory: CopyIn, CopyOut and Copy return the error, Fill
// and Host panic with it.
func TestHostCannotReachShared(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	var escaped gpu.Buffer[int32]
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { escaped = gpu.Shared[int32](t, "s", 4) }))
	const want = `shared memory is its block's, reached only by the block's threads while it runs; the host cannot copy to or from it`
	require.ErrorContains(t, escaped.CopyIn(make([]int32, 4)), "gpu: CopyIn of shared \"s\"")
	require.ErrorContains(t, escaped.CopyOut(make([]int32, 4)), want)
	global := gpu.Alloc[int32](d, "g", 4)
	require.ErrorContains(t, gpu.Copy(global, escaped), "gpu: Copy of shared \"s\"")
	require.ErrorContains(t, gpu.Copy(escaped, global), want)
	require.PanicsWithError(t, `gpu: Fill of shared "s" of block (0,0,0): `+want, func() { escaped.Fill(1) })
	require.Panics(t, func() { escaped.Host() })
}
