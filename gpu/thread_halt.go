package gpu

import (
	"errors"
	"runtime"
)

// Halt ends the thread with err and stops its launch, as a panic in
// kernel code does, but err itself is the thread's error: no panic value
// is wrapped and no goroutine stack is attached. The thread's
// [ThreadError] names as its Site the kernel line whose runtime call led
// to the Halt: the access or fence being observed.
//
// Halt is for an [Observer] that must stop a launch, as package race
// does at its first race under HaltOnFirst; it must be called from the
// Observer's Access or Fence method, which run on the thread's own flow.
// It does not return, and a kernel that recovers its panic does not lose
// err. The launch stops as Launch documents for a panic:
// the other threads end at their next runtime call, and the halt
// synchronizes before Launch returns. A nil err halts with
// [ErrHaltNil], so that the stop is not mistaken for success.
func (t *Thread) Halt(err error) {
	site := t.siteAbove()
	if err == nil {
		err = ErrHaltNil
	}
	t.blk.l.halt()
	t.failAt(err, site)
}

// ErrHaltNil is the error of a thread that [Thread.Halt] ended with a nil
// error: its launch stopped, so Launch cannot return nil.
var ErrHaltNil = errors.New("gpu: Thread.Halt with a nil error")

// siteAbove returns the kernel line below the caller of its caller: past
// the observer's frames, then the runtime's, the first frame of kernel
// code, as Caller finds it from an Observer method. It walks a deeper
// stack than Caller, since the observer's own frames come first.
func (t *Thread) siteAbove() Site {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	f, ok := resolve(pcs[:n])
	if !ok {
		return Site{}
	}
	return t.blk.l.d.sites.interned(f)
}
