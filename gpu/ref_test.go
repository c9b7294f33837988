package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestRefReportsOrders: a Ref's operations reach the observer with their
// orders, a seq_cst one after the fence.sc the runtime reports before it,
// and FenceAcqRel and ThreadFence as their two fence kinds.
func TestRefReportsOrders(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.FromHost(d, "x", []uint32{5})
	rec := &recorder{}
	cfg := gpu.LaunchConfig{Name: "ref", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: rec}
	var got [4]uint32
	var swapped bool
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		r := x.Ref(t, 0, scope.Device)
		got[0] = r.FetchAdd(2, gpu.AcqRel)
		got[1] = r.Exchange(9, gpu.Acquire)
		got[2], swapped = r.CompareExchange(9, 4, gpu.Release)
		r.Store(6, gpu.SeqCst)
		got[3] = r.Load(gpu.SeqCst)
		t.FenceAcqRel(scope.Block)
	}))
	require.Equal(t, [4]uint32{5, 7, 9, 6}, got)
	require.True(t, swapped)
	want := []string{
		"start ref 1",
		"block 0 start",
		"t0 atomicAdd x[0] off=0 size=4 acq_rel device old=5 arg=2 cmp=0 ok=true",
		"t0 atomicExch x[0] off=0 size=4 acquire device old=7 arg=9 cmp=0 ok=true",
		"t0 atomicCAS x[0] off=0 size=4 release device old=9 arg=4 cmp=9 ok=true",
		"t0 fence device seq_cst",
		"t0 store x[0] off=0 size=4 seq_cst device old=0 arg=6 cmp=0 ok=true",
		"t0 fence device seq_cst",
		"t0 load x[0] off=0 size=4 seq_cst device old=6 arg=0 cmp=0 ok=true",
		"t0 fence block acq_rel",
		"block 0 end",
		"end ref <nil>",
	}
	require.Equal(t, want, rec.events)
}

// TestRefRejectsOrders: an order C++ does not allow for an operation
// fails the thread with an error naming the operation, buffer, index and
// order, and the thread's coordinates.
func TestRefRejectsOrders(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		k    func(r gpu.Ref[int32])
		want string
	}{
		{"release load", func(r gpu.Ref[int32]) { r.Load(gpu.Release) }, `load of int32 buffer "x" index 1 with memory order release`},
		{"acquire store", func(r gpu.Ref[int32]) { r.Store(1, gpu.Acquire) }, `store of int32 buffer "x" index 1 with memory order acquire`},
		{"weak rmw", func(r gpu.Ref[int32]) { r.FetchAdd(1, gpu.Weak) }, `atomicAdd of int32 buffer "x" index 1 with memory order weak`},
	} {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 2)
		err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
			c.k(x.Ref(t, 1, scope.Device))
		})
		require.ErrorContains(t, err, c.want, c.name)
		require.ErrorContains(t, err, "thread (0,0,0) of block (0,0,0)", c.name)
	}
}

// TestRefOnNarrowViews: a Ref works on 1- and 2-byte elements and through
// a view, reaching the parent memory at the parent's index, and a view's
// neighbours keep their bytes while 64 threads add into one byte.
func TestRefOnNarrowViews(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	b := gpu.FromHost(d, "b", []uint8{7, 0, 9, 0})
	h := gpu.FromHost(d, "h", []gpu.Half{0, gpu.HalfFromFloat32(1.5)})
	v := b.Slice(1, 3)
	cfg := gpu.LaunchConfig{Name: "narrow-ref", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		v.Ref(t, 0, scope.Device).FetchAdd(1, gpu.AcqRel)
		h.Ref(t, 1, scope.Device).FetchAdd(gpu.HalfFromFloat32(0.5), gpu.Relaxed)
	}))
	got := make([]uint8, 4)
	require.NoError(t, b.CopyOut(got))
	require.Equal(t, []uint8{7, 64, 9, 0}, got)
	hs := make([]gpu.Half, 2)
	require.NoError(t, h.CopyOut(hs))
	require.Equal(t, float32(33.5), hs[1].Float32())
}
