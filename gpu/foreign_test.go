package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestForeignBuffer: a buffer of one device used in a launch on another
// fails the thread with a ThreadError wrapping a *ForeignError that names
// the thread, its block, the buffer and both devices, before the access
// reaches memory; every kind of access is checked, and the buffer's own
// device still uses it.
func TestForeignBuffer(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		a, err := gpu.NewDevice(gpu.DeviceConfig{Name: "a"})
		require.NoError(t, err)
		closeAtEnd(t, a)
		b, err := gpu.NewDevice(gpu.DeviceConfig{Name: "b"})
		require.NoError(t, err)
		closeAtEnd(t, b)
		x := gpu.Alloc[int32](a, "x", 4)
		accesses := map[string]func(t *gpu.Thread){
			"load":      func(t *gpu.Thread) { x.Load(t, 1) },
			"store":     func(t *gpu.Thread) { x.Store(t, 1, 7) },
			"volatile":  func(t *gpu.Thread) { x.StoreVolatile(t, 1, 7) },
			"atomicAdd": func(t *gpu.Thread) { x.AtomicAdd(t, 1, 7, scope.Device) },
			"atomicCAS": func(t *gpu.Thread) { x.AtomicCAS(t, 1, 0, 7, scope.Block) },
		}
		for name, k := range accesses {
			err := launch1D(b, ex, 2, 3, func(t *gpu.Thread) {
				if t.BlockRank() == 1 && t.ThreadRank() == 2 {
					k(t)
				}
			})
			var te *gpu.ThreadError
			require.ErrorAs(t, err, &te, name)
			var fe *gpu.ForeignError
			require.ErrorAs(t, err, &fe, name)
			require.Same(t, x.Memory(), fe.Mem)
			require.Same(t, b, fe.Device)
			require.Equal(t, 1, te.BlockID)
			require.Equal(t, 5, te.GlobalID)
			require.Contains(t, err.Error(), "thread (2,0,0) of block (1,0,0)")
			require.Contains(t, err.Error(), fmt.Sprintf(`index 1 of global "x", allocated on device %d "a", in a launch on device %d "b"`, a.ID(), b.ID()))
			require.Equal(t, []int32{0, 0, 0, 0}, x.Host(), "%s: the access never reached memory", name)
		}
		require.NoError(t, launch1D(a, ex, 1, 1, func(t *gpu.Thread) { x.Store(t, 1, 7) }))
		require.Equal(t, []int32{0, 7, 0, 0}, x.Host())
	})
}

// TestForeignShared: a block's shared array smuggled into a launch on
// another device is foreign there too.
func TestForeignShared(t *testing.T) {
	t.Parallel()
	a, b := newDevice(t), newDevice(t)
	var s gpu.Buffer[int64]
	require.NoError(t, launch1D(a, gpu.Fibers, 1, 1, func(t *gpu.Thread) { s = gpu.Shared[int64](t, "s", 2) }))
	err := launch1D(b, gpu.Fibers, 1, 1, func(t *gpu.Thread) { s.Load(t, 0) })
	var fe *gpu.ForeignError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Equal(t, gpu.OpLoad, fe.Op)
	require.ErrorContains(t, err, fmt.Sprintf(`load index 0 of shared "s" of block (0,0,0), allocated on device %d "warpguard", in a launch on device %d "warpguard"`, a.ID(), b.ID()))
}

// TestForeignBufferObserved: with an observer the foreign access fails
// the same way and is never reported to it.
func TestForeignBufferObserved(t *testing.T) {
	t.Parallel()
	a, b := newDevice(t), newDevice(t)
	x := gpu.Alloc[int32](a, "x", 1)
	rec := &recorder{}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: rec}
	err := b.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) })
	var fe *gpu.ForeignError
	require.ErrorAs(t, err, &fe)
	for _, e := range rec.events {
		require.NotRegexp(t, `^t\d+ store`, e, "the observer saw the foreign access: %q", rec.events)
	}
}
