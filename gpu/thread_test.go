package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// panicOf calls f and returns the value it panicked with, or nil.
func panicOf(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// requireEnded checks that r, a panic value, is an error saying the
// Thread of global id 5 (thread 1 of block 1) was used after its kernel
// returned, as what.
func requireEnded(t *testing.T, r any, what string) {
	t.Helper()
	err, ok := r.(error)
	require.True(t, ok, "%s: the panic value %v (%T) is not an error", what, r, r)
	require.ErrorIs(t, err, gpu.ErrThreadEnded, what)
	var te *gpu.ThreadError
	require.ErrorAs(t, err, &te, what)
	require.Equal(t, gpu.Dim3{X: 1}, te.Block, what)
	require.Equal(t, gpu.Dim3{X: 1}, te.Thread, what)
	require.Contains(t, fmt.Sprint(r), "thread (1,0,0) of block (1,0,0) (global thread 5)", what)
	require.Contains(t, fmt.Sprint(r), "used after its kernel returned", what)
}

// TestThreadKeptPastKernel: a kernel keeps its *Thread, and the test uses
// it after Launch returned. Every use panics with an error naming the
// thread; none touches memory. A Store once wrote silently, and
// SyncThreads panicked with a value that printed as "{0x7a6240}".
func TestThreadKeptPastKernel(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", 4)
		kept := make([]*gpu.Thread, 8)
		require.NoError(t, launch1D(d, ex, 2, 4, func(t *gpu.Thread) { kept[t.GlobalID()] = t }))
		th := kept[5]
		uses := map[string]func(){
			"store":       func() { buf.Store(th, 0, 7) },
			"load":        func() { buf.Load(th, 1) },
			"atomicAdd":   func() { buf.AtomicAdd(th, 2, 1, scope.Device) },
			"syncthreads": func() { th.SyncThreads() },
			"fence":       func() { th.ThreadFence() },
			"shfl":        func() { gpu.ShflSync(th, gpu.FullMask, int32(1), 0, 32) },
			// A call whose arguments are wrong too still names the
			// thread's end first, and what was wrong beside it.
			"store out of range": func() { buf.Store(th, 100, 7) },
			"invalid scope":      func() { buf.AtomicAdd(th, 0, 1, scope.Scope(99)) },
			"zero Buffer":        func() { gpu.Buffer[int32]{}.Load(th, 0) },
			"bad shfl width":     func() { gpu.ShflSync(th, gpu.FullMask, int32(1), 0, 3) },
		}
		for what, use := range uses {
			requireEnded(t, panicOf(use), what)
		}
		require.Contains(t, fmt.Sprint(panicOf(uses["store out of range"])), "index 100 out of range")
		require.Equal(t, []int32{0, 0, 0, 0}, buf.Host(), "a use after the kernel returned touched memory")
	})
}

// TestThreadKeptPastItsLaunchWhileAnotherRuns: the device keeps its
// threads' slow-path states for its next launches, so a Thread kept past
// its launch shares them with a thread of the next. Every use of the kept
// Thread, made while launches of the same shape run on the device and
// wait at barriers, warp collectives and faults of their own, still
// panics with ErrThreadEnded and touches neither memory nor the running
// launches: they give their own results, and -race sees no access of the
// kept Thread to the states they use.
func TestThreadKeptPastItsLaunchWhileAnotherRuns(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", 4)
		out := gpu.Alloc[int32](d, "out", 8)
		kept := make([]*gpu.Thread, 8)
		require.NoError(t, launch1D(d, ex, 2, 4, func(t *gpu.Thread) { kept[t.GlobalID()] = t }))
		th := kept[5]
		done := make(chan error)
		go func() {
			var errs []error
			for range 20 {
				errs = append(errs, launch1D(d, ex, 2, 4, func(t *gpu.Thread) {
					t.SyncThreads()
					v := gpu.ShflSync(t, gpu.FullMask, int32(t.GlobalID()), 0, 4)
					t.SyncThreads()
					out.Store(t, t.GlobalID(), v)
				}))
			}
			done <- errors.Join(errs...)
		}()
		uses := map[string]func(){
			"store":       func() { buf.Store(th, 0, 7) },
			"load":        func() { buf.Load(th, 1) },
			"atomicAdd":   func() { buf.AtomicAdd(th, 2, 1, scope.Device) },
			"syncthreads": func() { th.SyncThreads() },
			"shfl":        func() { gpu.ShflSync(th, gpu.FullMask, int32(1), 0, 32) },
			"syncwarp":    func() { th.SyncWarp(gpu.FullMask) },
			"ballot":      func() { gpu.BallotSync(th, gpu.FullMask, true) },
			"activemask":  func() { gpu.ActiveMask(th) },
			"fence":       func() { th.ThreadFence() },
		}
		for range 50 {
			for what, use := range uses {
				requireEnded(t, panicOf(use), what)
			}
		}
		require.NoError(t, <-done)
		require.Equal(t, []int32{0, 0, 0, 0}, buf.Host(), "a use after the kernel returned touched memory")
		require.Equal(t, []int32{0, 0, 0, 0, 4, 4, 4, 4}, out.Host())
	})
}

// TestThreadInGoroutineAfterReturn: a kernel starts a goroutine that uses
// its Thread after the kernel returned. The use panics on that goroutine
// with the error naming the thread.
func TestThreadInGoroutineAfterReturn(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", 1)
		release := make(chan struct{})
		got := make(chan any, 1)
		require.NoError(t, launch1D(d, ex, 2, 4, func(t *gpu.Thread) {
			if t.GlobalID() == 5 {
				go func() {
					<-release
					got <- panicOf(func() { buf.Store(t, 0, 1) })
				}()
			}
		}))
		close(release)
		requireEnded(t, <-got, "store")
		require.Equal(t, []int32{0}, buf.Host())
	})
}

// TestThreadEndedIsNotAKernelError: ErrThreadEnded never shows in a
// launch's own error: a thread's uses of itself are fine.
func TestThreadEndedIsNotAKernelError(t *testing.T) {
	d := newDevice(t)
	buf := gpu.Alloc[int32](d, "buf", 8)
	err := launch1D(d, gpu.Fibers, 2, 4, func(t *gpu.Thread) { buf.Store(t, t.GlobalID(), 1); t.SyncThreads() })
	require.False(t, errors.Is(err, gpu.ErrThreadEnded))
	require.NoError(t, err)
}

// TestThreadSharedAtBarrier: thread 0 starts a goroutine that calls its
// Thread's SyncThreads while thread 0 itself waits at the barrier. The
// call panics with an error naming the thread and wrapping
// ErrThreadShared, and touches no barrier state: the block's barrier
// completes as if the call never happened. The call was once counted as
// an arrival of the thread. The goroutine's call races with the thread's
// own state, as such a misuse does, so -race skips the test.
func TestThreadSharedAtBarrier(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		if raceEnabled {
			t.Skip("the misuse is a Go data race")
		}
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		var waiting, tried atomic.Bool
		got := make(chan any, 1)
		err := launch1D(d, ex, 1, 2, func(t *gpu.Thread) {
			if t.ThreadRank() == 0 {
				go func() {
					for !waiting.Load() {
						time.Sleep(time.Millisecond)
					}
					time.Sleep(50 * time.Millisecond) // under goroutines, for thread 0 to reach its barrier
					got <- panicOf(t.SyncThreads)
					tried.Store(true)
				}()
			} else {
				waiting.Store(true) // under fibers thread 1 starts once thread 0 waits
				for !tried.Load() {
					flag.AtomicLoad(t, 0, scope.Block)
				}
			}
			t.SyncThreads()
		})
		r := <-got
		if r == nil { // under goroutines, a loaded machine may have let the goroutine arrive first
			require.ErrorIs(t, err, gpu.ErrThreadShared)
			return
		}
		require.NoError(t, err)
		rerr, ok := r.(error)
		require.True(t, ok, "the panic value %v (%T) is not an error", r, r)
		require.ErrorIs(t, rerr, gpu.ErrThreadShared)
		var te *gpu.ThreadError
		require.ErrorAs(t, rerr, &te)
		require.Equal(t, 0, te.GlobalID)
		require.Contains(t, rerr.Error(), "thread (0,0,0) of block (0,0,0)")
		require.Contains(t, rerr.Error(), "SyncThreads while the thread waits at syncthreads")
	})
}

// TestThreadPlace: a thread's Place names its device and its launch
// besides its ids, so block 0 of one launch is not block 0 of the next,
// and threads of two devices share only system scope.
func TestThreadPlace(t *testing.T) {
	t.Parallel()
	devs := [2]*gpu.Device{newDevice(t), newDevice(t)}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}}
	place := func(d *gpu.Device) (scope.Place, uint64) {
		var p scope.Place
		var id uint64
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.GlobalID() == 97 {
				p, id = t.Place(), t.Grid().ID
			}
		}))
		return p, id
	}
	a, aID := place(devs[0])
	b, bID := place(devs[0])
	c, _ := place(devs[1])
	require.Equal(t, scope.Place{Device: devs[0].ID(), Launch: aID, Thread: 97, Warp: 3, Block: 1}, a)
	require.Equal(t, scope.Place{Device: devs[0].ID(), Launch: bID, Thread: 97, Warp: 3, Block: 1}, b)
	require.NotEqual(t, aID, bID)
	require.Equal(t, devs[1].ID(), c.Device)
	require.Equal(t, scope.Device, scope.Common(a, b), "one device, two launches")
	require.False(t, scope.Block.Covers(a, b))
	require.Equal(t, scope.System, scope.Common(a, c), "two devices")
	require.False(t, scope.Device.Covers(a, c))
}
