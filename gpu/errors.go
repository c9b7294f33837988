package gpu

import (
	"errors"
	"fmt"
	"runtime"
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
	Launch   string // LaunchConfig.Name, or "kernel"
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

// A RangeError reports an element index outside a buffer or a view of
// one ([Buffer.Slice]).
type RangeError struct {
	Mem   *Memory
	Index int  // the index given, in the accessed view
	Len   int  // elements in the accessed view
	Lo    int  // the index in Mem of the view's element 0
	View  bool // the accessed buffer is a view of part of Mem
	Op    Op
}

// Error names the operation, the index, the valid range and the memory,
// and the view's place in it, such as `store index 4 out of range [0:4]
// of view [2,6) of global "x"`.
func (e *RangeError) Error() string {
	where := e.Mem.String()
	if e.View {
		where = fmt.Sprintf("view [%d,%d) of %v", e.Lo, e.Lo+e.Len, e.Mem)
	}
	return fmt.Sprintf("%v index %d out of range [0:%d] of %s", e.Op, e.Index, e.Len, where)
}

// A PanicError is a panic raised by kernel code, recovered by the runtime.
type PanicError struct {
	Value any
	// Stack is the panicking goroutine's stack from the panic call down
	// to the kernel's frame: the frames of the runtime's recovery above
	// it and of the executor below the kernel are left out.
	Stack []byte
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

// ErrThreadEnded is the error of a [Thread] used after its kernel returned:
// a Thread belongs to one call of the kernel, on the goroutine the runtime
// called it on. Such a use cannot fail the thread, which has ended, so the
// call panics, with an error that unwraps to a *[ThreadError] naming the
// thread, whose Err wraps ErrThreadEnded. A Thread kept past its kernel
// is caught from its return on, as long as no later block of the launch
// reuses it (a Thread passed to another goroutine and used after Launch
// returned always is); a goroutine using it while its kernel still runs
// is not.
var ErrThreadEnded = errors.New("gpu: Thread used after its kernel returned; a Thread must not be kept past its kernel or passed to another goroutine")

// ErrThreadShared is the error of a [Thread] used by a goroutine other
// than the one its kernel runs on, caught at a barrier or a spinning
// access's yield made while the thread itself waits at a barrier or
// collective. The call panics with an error that unwraps to a
// *[ThreadError] naming the thread, whose Err wraps ErrThreadShared; the
// goroutine the call came from cannot be told from the thread's own, so
// if the thread's own call is the one caught, its launch fails with that
// error. Uses while the thread runs are not caught. Sharing a Thread is a
// Go data race of the caller's too: under go test -race the race
// detector reports it, in the runtime's fields that the two goroutines
// touch, beside or before this error.
var ErrThreadShared = errors.New("gpu: Thread used by a goroutine other than its kernel's; a Thread must not be passed to another goroutine")

// own fails a call described by what if t waits at a barrier or
// collective: the call comes from another goroutine. It comes before the
// call records anything on t. It checks for a stop first: a thread the
// stop woke from a wait is still counted as waiting, and a releaser may
// write that count meanwhile; a thread that was not stopped was woken by
// its releaser, whose write synchronizes before the wake.
//
// It is check with the parked test beside the stop's, small enough to
// inline into every barrier and collective.
func (t *Thread) own(what string) {
	if t.stop.Load() || t.parked { // the stop first, as check comes first
		t.ownSlow(what)
	}
	t.weakN = 0 // what check does besides
}

// ownSlow is own for a thread that is stopped or parked.
func (t *Thread) ownSlow(what string) {
	t.check()
	if t.parked {
		t.shared(what)
	}
}

// shared fails a call described by what, made on t while t waits at a
// barrier or collective: another goroutine uses t.
func (t *Thread) shared(what string) {
	err := t.threadError(fmt.Errorf("%s while the thread waits at %s: %w", what, t.at.name(), ErrThreadShared))
	panic(abort{t: t, err: err, named: true})
}

// abort is the panic value the runtime uses to unwind a thread's stack: err
// is its error, or errStopped when the launch stops it. site, if known, is
// the kernel line the error belongs to; otherwise the thread's root finds
// it on the unwinding stack. It is an error, so that a panic that escapes
// the runtime (a Thread used after its kernel returned) says what
// happened.
type abort struct {
	t    *Thread
	err  error
	site Site
	// recorded says err is the thread's recorded error, t.err.
	recorded bool
	// named says err is a *ThreadError naming the thread, made when the
	// panic may escape to a goroutine that is not the thread's.
	named bool
}

// Error describes the abort; see Unwrap.
func (a abort) Error() string { return a.Unwrap().Error() }

// Unwrap returns the thread's error, or, for a Thread used after its
// kernel returned or by another goroutine, a *ThreadError naming it.
func (a abort) Unwrap() error {
	if a.err == errStopped && a.t.ended() {
		return a.t.endedError("runtime call")
	}
	return a.err
}

// ended reports whether t's kernel returned: depart pointed its stop flag
// at the launch's always-set ended flag.
func (t *Thread) ended() bool { return t.stop == &t.blk.l.ended }

// endedError is the error of a use of t, described by what, after its
// kernel returned.
func (t *Thread) endedError(what string) *ThreadError {
	return t.threadError(fmt.Errorf("%s: %w", what, ErrThreadEnded))
}

// fail ends the thread with err, which it records first: a kernel that
// recovers the panic does not lose the error (see outcome). It does not
// return.
func (t *Thread) fail(err error) { t.failAt(err, Site{}) }

// failAt is fail for an error whose kernel line is known: site, or the
// zero Site to find the line on the stack now, before a kernel that
// recovers the panic unwinds it.
func (t *Thread) failAt(err error, site Site) {
	if t.ended() { // a kept Thread: its end comes first, and nothing is recorded
		panic(abort{t: t, err: t.endedError(err.Error()), named: true})
	}
	if site.IsZero() {
		site = t.kernelSite()
	}
	first := t.err == nil
	if first {
		t.err, t.errSite = err, site
	}
	panic(abort{t: t, err: err, site: site, recorded: first})
}

// kernelSite returns the kernel line whose call into the runtime is on
// the stack now: the first frame past this package's.
func (t *Thread) kernelSite() Site {
	var pcs stack
	runtime.Callers(2, pcs[:])
	return t.dev.sites.lookup(&pcs)
}

// failf ends the thread with a formatted error. It does not return.
func (t *Thread) failf(format string, args ...any) {
	t.fail(fmt.Errorf(format, args...))
}

// stopped ends the thread because its launch stopped. It does not return.
func (t *Thread) stopped() { panic(abort{t: t, err: errStopped}) }

// fault is a failed access check, the panic value of the access: the
// launch stopped, the index is out of range of the view's n elements, or
// the scope s is invalid. The access records it on t before panicking
// (see Buffer.at), and a kernel that recovers the panic cannot lose it.
type fault struct {
	t    *Thread
	m    *Memory
	i, n int // the index given and the view's length
	op   Op
	s    scope.Scope
	lo   int  // the index in m of the view's element 0
	size int  // the element size of the view's type
	site Site // the kernel's line, for a fault that is an error
	// ended says the thread's kernel had returned when the access was
	// made: the fault is a kept Thread's, whatever else was wrong.
	ended bool
}

// err returns the fault's error: an invalid scope's, a *ForeignError if
// the index was fine but the memory is another device's than the thread's,
// errStopped if both were fine, so the launch must have stopped, or a
// *RangeError.
func (f *fault) err() error {
	switch {
	case !f.s.Valid():
		return fmt.Errorf("%v with invalid %v", f.op, f.s)
	case uint(f.i) < uint(f.n) && f.m.dev != f.t.dev:
		return &ForeignError{Mem: f.m, Index: f.lo + f.i, Op: f.op, Device: f.t.dev}
	case uint(f.i) < uint(f.n):
		return errStopped
	case f.m == nil:
		return fmt.Errorf("%v index %d of a zero Buffer", f.op, f.i)
	}
	return &RangeError{Mem: f.m, Index: f.i, Len: f.n, Lo: f.lo, View: isView(f.m, f.lo, f.n, f.size), Op: f.op}
}

// Error describes the fault, for a panic that escapes the runtime; see
// Unwrap.
func (f *fault) Error() string { return f.Unwrap().Error() }

// Unwrap returns the fault's error, or, for a Thread used after its kernel
// returned, the *ThreadError saying so.
func (f *fault) Unwrap() error {
	err := f.err()
	switch {
	case f.ended:
		return f.t.endedError(err.Error())
	case err == errStopped && f.t.ended():
		return f.t.endedError(fmt.Sprintf("%v %v[%d]", f.op, f.m, f.lo+f.i))
	}
	return err
}

// recovered turns the value a thread's root recovered into the thread's
// error: nil for a normal return, errStopped for a stop, the abort's or
// fault's error, or a *PanicError with the stack for a panic in kernel
// code.
func recovered(r any) error {
	switch r := r.(type) {
	case nil:
		return nil
	case abort:
		if te, ok := r.err.(*ThreadError); ok && r.named {
			return te.Err // the thread's own call: its root names it
		}
		return r.err
	case *fault:
		return r.err()
	default:
		return &PanicError{Value: r, Stack: kernelStack(debug.Stack())}
	}
}

// recorded reports whether the runtime recorded an error or fault on the
// thread, which a thread that returns normally must still report.
func (t *Thread) recorded() bool { return t.flt.t != nil || t.err != nil }

// recordedSite returns the kernel line of the error recorded on t that
// outcome puts first: its fault's, else its failure's.
func (t *Thread) recordedSite() Site {
	if t.flt.t != nil && t.flt.err() != errStopped {
		return t.flt.site
	}
	return t.errSite
}

// raised reports whether r, the value a thread's root recovered, is the
// fault or failure recorded on t.
func (t *Thread) raised(r any) bool {
	switch r := r.(type) {
	case *fault:
		return r == &t.flt
	case abort:
		return r.recorded && r.t == t
	}
	return false
}

// outcome is the error of a thread that ended with recovered value r, or
// abnormally with no value (runtime.Goexit) if !normal, and whether its
// launch stopped it there. Errors the runtime recorded on the thread come
// first, even if the kernel recovered their panics: the thread's latest
// fault and the first error it failed with. The error of r follows unless
// it is one of those, nil, or the stop.
func (t *Thread) outcome(r any, normal bool) (err error, stopped bool) {
	err = recovered(r)
	if r == nil && !normal {
		err = errGoexit
	}
	stopped = err == errStopped
	var errs []error
	if t.flt.t != nil {
		if e := t.flt.err(); e != errStopped {
			errs = append(errs, e)
		}
	}
	if t.err != nil {
		errs = append(errs, t.err)
	}
	if t.raised(r) || err == errStopped {
		err = nil
	}
	if err != nil {
		errs = append(errs, err)
	}
	switch len(errs) {
	case 0:
		if stopped {
			return errStopped, true
		}
		return nil, false
	case 1:
		return errs[0], stopped
	}
	return errors.Join(errs...), stopped
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
