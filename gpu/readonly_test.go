package gpu_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// roSeen is an Observer that keeps the read-only fields of each access.
type roSeen struct {
	recorder
	mu  sync.Mutex
	got []gpu.Access
}

func (r *roSeen) Access(t *gpu.Thread, a *gpu.Access) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, *a)
}

// TestReadOnlyLoads: a read-only view loads what its buffer holds, under
// either executor, with or without an observer, and fails an index out
// of the view as a load of the view does.
func TestReadOnlyLoads(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		d := newDevice(t)
		x := gpu.FromHost(d, "x", []int32{10, 11, 12, 13, 14, 15})
		v := x.Slice(2, 5).ReadOnly()
		require.Equal(t, 3, v.Len())
		require.Equal(t, x.Slice(2, 5), v.Buffer())
		out := gpu.Alloc[int32](d, "out", 3)
		require.NoError(t, launch1D(d, ex, 1, 3, func(t *gpu.Thread) {
			out.Store(t, t.ThreadRank(), v.Load(t, t.ThreadRank()))
		}))
		require.Equal(t, []int32{12, 13, 14}, out.Host())

		err := launch1D(d, ex, 2, 2, func(t *gpu.Thread) {
			if t.BlockRank() == 1 && t.ThreadRank() == 1 {
				v.Load(t, 3)
			}
		})
		require.ErrorContains(t, err, `load index 3 out of range [0:3] of view [2,5) of global "x"`)
		require.ErrorContains(t, err, "block (1,0,0)")
		require.ErrorContains(t, err, "thread (1,0,0)")

		var zero gpu.ReadOnly[int32]
		err = launch1D(d, ex, 1, 1, func(t *gpu.Thread) { zero.Load(t, 0) })
		require.ErrorContains(t, err, "load index 0 of a zero Buffer", "the zero view has no element")
	}
}

// TestReadOnlyObserved: an observer sees a load through a read-only view
// of global memory as a weak load with ReadOnly set and the view's range
// in the memory, and every other access with ReadOnly clear; a view of
// shared memory loads as Load does.
func TestReadOnlyObserved(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.FromHost(d, "x", []int32{1, 2, 3, 4})
	v := x.Slice(1, 4).ReadOnly()
	obs := &roSeen{}
	cfg := gpu.LaunchConfig{Name: "ro", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		v.Load(t, 2)
		x.Store(t, 0, 5)
		sh := gpu.Shared[int32](t, "s", 2)
		sh.ReadOnly().Load(t, 1)
	}))
	require.Len(t, obs.got, 3)
	ro := obs.got[0]
	require.True(t, ro.ReadOnly)
	require.Equal(t, gpu.OpLoad, ro.Op)
	require.Equal(t, gpu.Weak, ro.Order)
	require.Equal(t, 3, ro.Index)
	require.Equal(t, int32(4), int32(ro.Old))
	require.Equal(t, [2]int{1, 3}, [2]int{ro.ViewLo, ro.ViewLen})
	require.False(t, obs.got[1].ReadOnly, "a store after a read-only load is no read-only access")
	require.False(t, obs.got[2].ReadOnly, "a view of shared memory promises nothing")
}
