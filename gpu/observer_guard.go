package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
)

// The observer calls below are made outside a thread's own flow: inside
// barrier and collective bookkeeping that holds the block's state (and,
// under the goroutine executor, its mutex), or on a slot's goroutine. A
// panicking Observer must not unwind through that state, where it would
// leave a mutex held or a round half released, nor crash the program from
// a goroutine no thread root guards; so each call recovers, records the
// panic as the launch's error, and stops the launch. Access and Fence are
// called on the thread's own flow, where its root recovers.

// observerPanic is the error of an Observer method that panicked: the
// error it panicked with, when that is an error and not the Go runtime's
// (a refusal, such as a launch the observer cannot take), else a
// PanicError with the stack, the trace of a fault in the observer.
func observerPanic(method string, r any) error {
	if err, ok := r.(error); ok && !isRuntimeError(err) {
		return fmt.Errorf("gpu: Observer.%s: %w", method, err)
	}
	return fmt.Errorf("gpu: Observer.%s: %w", method, &PanicError{Value: r, Stack: debug.Stack()})
}

// isRuntimeError reports whether err is a fault of the Go runtime (a nil
// dereference, an index out of range), which carries no meaning of its
// own without its stack.
func isRuntimeError(err error) bool {
	var re runtime.Error
	return errors.As(err, &re)
}

// syncObserved reports a completed barrier or collective.
func (l *launch) syncObserved(by *Thread, s Sync) {
	defer func() {
		if r := recover(); r != nil {
			l.record(by.threadError(observerPanic("Sync", r)))
			l.halt()
		}
	}()
	by.obs.Sync(by, s)
}

// blockObserved reports a block's start or end. An Observer's panic is
// the launch's error, naming the launch and the block's coordinates.
func (l *launch) blockObserved(start bool, id int) {
	method := "BlockEnd"
	if start {
		method = "BlockStart"
	}
	defer func() {
		if r := recover(); r != nil {
			l.recordOther(fmt.Errorf("gpu: %s: block %v (block id %d): %w", l.g.Name, l.g.GridDim.index(id), id, observerPanic(method, r)))
			l.halt()
		}
	}()
	if start {
		l.cfg.Observer.BlockStart(&l.g, id)
	} else {
		l.cfg.Observer.BlockEnd(&l.g, id)
	}
}

// launchObserved reports the launch's start (err unused) or end, returning
// the Observer's panic as an error.
func (l *launch) launchObserved(start bool, err error) (perr error) {
	method := "LaunchEnd"
	if start {
		method = "LaunchStart"
	}
	defer func() {
		if r := recover(); r != nil {
			perr = fmt.Errorf("gpu: %s: %w", l.g.Name, observerPanic(method, r))
		}
	}()
	if start {
		l.cfg.Observer.LaunchStart(&l.g)
	} else {
		l.cfg.Observer.LaunchEnd(&l.g, err)
	}
	return nil
}
