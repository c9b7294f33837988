package gpu_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestSliceSharesMemory: a view shares its buffer's memory both ways, at
// its offset, in kernels and host copies, and a view of a view adds the
// offsets.
func TestSliceSharesMemory(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.FromHost(d, "x", []int16{0, 1, 2, 3, 4, 5, 6, 7})
	v := x.Slice(2, 6)
	require.Equal(t, 4, v.Len())
	require.Equal(t, 2, v.Offset())
	require.Same(t, x.Memory(), v.Memory())
	require.Equal(t, []int16{2, 3, 4, 5}, v.Host())
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 4, func(t *gpu.Thread) {
		v.AtomicAdd(t, t.ThreadRank(), 10, scope.Device)
	}))
	require.Equal(t, []int16{0, 1, 12, 13, 14, 15, 6, 7}, x.Host())
	w := v.Slice(1, 3)
	require.Equal(t, 3, w.Offset())
	require.NoError(t, w.CopyIn([]int16{-1, -2}))
	v.Slice(3, 4).Fill(9)
	require.Equal(t, []int16{0, 1, 12, -1, -2, 9, 6, 7}, x.Host())
	require.ErrorContains(t, w.CopyIn([]int16{1}), `CopyIn of 1 elements into view [3,5) of global "x" of length 2`)
	end := x.Slice(8, 8)
	require.Zero(t, end.Len())
	require.NoError(t, end.CopyIn(nil))
}

// TestSliceBounds: an index outside a view fails the thread, naming the
// thread, its block, the index, the view and its buffer; Slice itself
// panics out of range, as a Go slice expression does.
func TestSliceBounds(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[uint8](d, "flags", 10)
	v := x.Slice(2, 6)
	err := launch1D(d, gpu.Fibers, 2, 4, func(t *gpu.Thread) {
		if t.BlockRank() == 1 && t.ThreadRank() == 3 {
			v.Store(t, 4, 1) // element 6 of x, but outside the view
		}
	})
	require.ErrorContains(t, err, `store index 4 out of range [0:4] of view [2,6) of global "flags"`)
	require.ErrorContains(t, err, "block (1,0,0)")
	require.ErrorContains(t, err, "thread (3,0,0)")
	var re *gpu.RangeError
	require.ErrorAs(t, err, &re)
	require.Equal(t, gpu.RangeError{Mem: x.Memory(), Index: 4, Len: 4, Lo: 2, View: true, Op: gpu.OpStore}, *re)
	require.Equal(t, make([]uint8, 10), x.Host(), "nothing stored")

	err = launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { x.Load(t, 10) })
	require.ErrorContains(t, err, `load index 10 out of range [0:10] of global "flags"`, "a whole buffer is no view")

	var line int
	err = launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) {
		_, _, line, _ = runtime.Caller(0)
		v.Slice(3, 5) // the line after Caller's
	})
	var te *gpu.ThreadError
	require.ErrorAs(t, err, &te)
	require.Equal(t, line+1, te.Site.Line(), "a Slice out of bounds names the kernel's line, not the runtime's: %v", err)
	require.Equal(t, "view_test.go", filepath.Base(te.Site.File()))

	require.PanicsWithValue(t, `gpu: Slice [3:5] of view [2,6) of global "flags" of length 4`, func() { v.Slice(3, 5) })
	require.Panics(t, func() { x.Slice(-1, 2) })
	require.Panics(t, func() { x.Slice(3, 2) })
}

// TestSliceObserved: an observer sees a view's accesses at the memory's
// index, and host copies of a view as its range of the memory.
func TestSliceObserved(t *testing.T) {
	t.Parallel()
	rec := &hostRecorder{}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	closeAtEnd(t, d)
	x := gpu.Alloc[float32](d, "x", 8)
	v := x.Slice(5, 8)
	require.NoError(t, v.CopyIn([]float32{1, 2, 3}))
	obs := &recorder{}
	require.NoError(t, d.Launch(t.Context(), gpu.LaunchConfig{Name: "v", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}, func(t *gpu.Thread) {
		v.Store(t, 1, 4)
	}))
	require.Contains(t, obs.events, "t0 store x[6] off=24 size=4 weak thread old=0 arg=1082130432 cmp=0 ok=true")
	require.Equal(t, []string{fmt.Sprintf("CopyIn x [5,+3) write=true dev=%d", d.ID())}, rec.host)
}
