package gpu_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// halter is an Observer that halts the launch at the first store of
// thread 3, through a helper frame of its own as a detector has.
type halter struct {
	recorder
	err error
}

func (h *halter) LaunchStart(*gpu.Grid)                     {}
func (h *halter) LaunchEnd(*gpu.Grid, error)                {}
func (h *halter) BlockStart(*gpu.Grid, int)                 {}
func (h *halter) BlockEnd(*gpu.Grid, int)                   {}
func (h *halter) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (h *halter) Sync(*gpu.Thread, gpu.Sync)                {}
func (h *halter) Access(t *gpu.Thread, a *gpu.Access) {
	if t.GlobalID() == 3 && a.Op == gpu.OpStore {
		h.stop(t)
	}
}

//go:noinline
func (h *halter) stop(t *gpu.Thread) { t.Halt(h.err) }

// TestHaltEndsTheLaunchAtTheKernelLine: an Observer's Halt ends the launch
// with its error as the thread's, no stack attached, at the kernel line of
// the observed access, on every executor; the other threads stop.
func TestHaltEndsTheLaunchAtTheKernelLine(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 64)
		obs := &halter{err: errors.New("observer says stop")}
		var line, after atomic.Int64
		cfg := gpu.LaunchConfig{Name: "halted", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Executor: ex, Observer: obs}
		err := d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			_, _, l, _ := runtime.Caller(0)
			line.Store(int64(l) + 2)
			x.Store(t, t.ThreadRank(), 1)
			for range 1000 {
				t.SyncThreads() // the others stop here
			}
			after.Add(1)
		})
		var te *gpu.ThreadError
		require.ErrorAs(t, err, &te)
		require.ErrorIs(t, err, obs.err)
		require.Equal(t, 3, te.GlobalID)
		require.Equal(t, int(line.Load()), te.Site.Line())
		require.Equal(t, `gpu: halted: thread (3,0,0) of block (0,0,0) (global thread 3) at `+te.Site.String()+`: observer says stop`, err.Error(),
			"one error, the observer's, with no stack")
		require.Zero(t, after.Load(), "the launch stopped")
	})
}

// TestHaltNilIsAnError: an Observer's Halt with a nil error still stops
// the launch, and Launch returns ErrHaltNil with the thread's coordinates
// rather than nil, on every executor.
func TestHaltNilIsAnError(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 64)
		var after atomic.Int64
		cfg := gpu.LaunchConfig{Name: "halted", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Executor: ex, Observer: &halter{}}
		err := d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			x.Store(t, t.ThreadRank(), 1)
			t.SyncThreads()
			after.Add(1)
		})
		require.ErrorIs(t, err, gpu.ErrHaltNil)
		var te *gpu.ThreadError
		require.ErrorAs(t, err, &te)
		require.Equal(t, 3, te.GlobalID)
		require.Zero(t, after.Load(), "the launch stopped")
	})
}
