package gpu

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/warpguard/warpguard/scope"
)

// A ThreadError is an error raised by a thread: an out-of-range index, a
// panic, a misused intrinsic. It names the thread by its coordinates.
//
// Threads that fail with the same error at the same kernel line, as every
// thread of a misused grid sync does, give one ThreadError: it names the
// first of them, in global thread order, and Threads counts them all.
type ThreadError struct {
	Launch   string // Config.Name, or "kernel"
	Block    Dim3   // blockIdx
	Thread   Dim3   // threadIdx
	BlockID  int    // linear block id
	GlobalID int    // linear thread id in the grid
	// Site is the kernel line the thread ended at: the line that made
	// the failing runtime call, that panicked, or whose call led to
	// runtime.Goexit. It is zero if unknown.
	Site Site
	Err  error
	// Threads counts the threads that failed with this error at this
	// Site: 1, or more for a mistake many threads repeat. The fields
	// above name the first of them.
	Threads int

	text string // Err's text, which identifies a repeat
}

// Error names the thread by its coordinates and the kernel line, then its
// error; for an error many threads made, the first thread and how many
// others made it.
func (e *ThreadError) Error() string {
	at := ""
	if !e.Site.IsZero() {
		at = " at " + e.Site.String()
	}
	others := ""
	if e.Threads > 1 {
		others = fmt.Sprintf(" and %d other %s", e.Threads-1, plural(e.Threads-1, "thread", "threads"))
	}
	return fmt.Sprintf("gpu: %s: thread %v of block %v (global thread %d)%s%s: %v",
		e.Launch, e.Thread, e.Block, e.GlobalID, others, at, e.Err)
}

// plural returns one for n == 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// repeats reports whether e, a new error, repeats kept: the same error
// text at the same kernel line.
func (e *ThreadError) repeats(kept *ThreadError) bool {
	return kept.Site == e.Site && kept.text == e.text
}

// absorb counts r, a repeat of e, in e, which then names the first of
// their threads.
func (e *ThreadError) absorb(r *ThreadError) {
	n := e.Threads + r.Threads
	if r.GlobalID < e.GlobalID {
		*e = *r
	}
	e.Threads = n
}

// Unwrap returns the underlying error.
func (e *ThreadError) Unwrap() error { return e.Err }

// A RangeError reports an element index outside a buffer.
type RangeError struct {
	Mem   *Memory
	Index int
	Len   int // elements in the accessed view
	Op    Op
}

// Error names the operation, the index, the valid range and the memory.
func (e *RangeError) Error() string {
	return fmt.Sprintf("%v index %d out of range [0:%d] of %v", e.Op, e.Index, e.Len, e.Mem)
}

// A PanicError is a panic raised by kernel code, recovered by the runtime.
type PanicError struct {
	Value any
	Stack []byte // the panicking goroutine's stack
}

// Error gives the panic value and the stack of the panicking thread.
func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// ErrStopped is the cause a thread sees when its launch stops because
// another thread failed. It never appears in the error Launch returns.
var errStopped = errors.New("gpu: launch stopped")

// abort is the panic value the runtime uses to unwind a thread's stack: err
// is its error, or errStopped when the launch stops it. site, if known, is
// the kernel line the error belongs to; otherwise the thread's root finds
// it on the unwinding stack.
type abort struct {
	err  error
	site Site
}

// fail ends the thread with err. It does not return.
func (t *Thread) fail(err error) {
	panic(abort{err: err})
}

// failf ends the thread with a formatted error. It does not return.
func (t *Thread) failf(format string, args ...any) {
	t.fail(fmt.Errorf(format, args...))
}

// stopped ends the thread because its launch stopped. It does not return.
func (t *Thread) stopped() { panic(abort{err: errStopped}) }

// fault is the panic value of an access that failed its fast check: the
// launch stopped, the index is out of range of the view's n elements, or
// the memory belongs to another device than the thread's.
type fault struct {
	m    *Memory
	i, n int
	op   Op
}

// scopeFault is the panic value of an operation given an invalid scope.
type scopeFault struct {
	op Op
	s  scope.Scope
}

// err returns the fault's error for a thread running on device on: a
// *ForeignError if the index was fine but the memory is another device's,
// errStopped if both were fine, so the launch must have stopped, or a
// *RangeError.
func (f fault) err(on *Device) error {
	switch {
	case uint(f.i) < uint(f.n) && f.m.dev != on:
		return &ForeignError{Mem: f.m, Index: f.i, Op: f.op, Device: on}
	case uint(f.i) < uint(f.n):
		return errStopped
	case f.m == nil:
		return fmt.Errorf("%v index %d of a zero Buffer", f.op, f.i)
	}
	return &RangeError{Mem: f.m, Index: f.i, Len: f.n, Op: f.op}
}

// recovered turns the value a thread's root recovered into the thread's
// error: nil for a normal return, errStopped for a stop, the abort's error,
// or a *PanicError with the stack for a panic in kernel code. on is the
// device the thread ran on, which a fault compares its memory's with.
func recovered(r any, on *Device) error {
	switch r := r.(type) {
	case nil:
		return nil
	case abort:
		return r.err
	case fault:
		return r.err(on)
	case scopeFault:
		return fmt.Errorf("%v with invalid %v", r.op, r.s)
	default:
		return &PanicError{Value: r, Stack: debug.Stack()}
	}
}

// threadError wraps err with t's coordinates.
func (t *Thread) threadError(err error) *ThreadError {
	return &ThreadError{
		Launch: t.blk.l.g.Name, Block: t.blk.idx, Thread: t.ThreadIdx(),
		BlockID: t.blk.id, GlobalID: t.gid, Err: err, Threads: 1, text: err.Error(),
	}
}

// keep adds e to the launch's thread errors, or counts it in the one it
// repeats, so that a mistake every thread makes is reported once; past
// maxErrors distinct errors, it is only counted. Preconditions: l.mu held.
func (l *launch) keep(e *ThreadError) {
	for _, k := range l.errs {
		if e.repeats(k) {
			k.absorb(e)
			return
		}
	}
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, e)
		return
	}
	l.dropped++
}
