package gpu

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// ErrTimeout is the cause of a launch stopped by LaunchConfig.Timeout. The
// error Launch returns then also matches context.DeadlineExceeded.
var ErrTimeout = errors.New("gpu: launch timeout")

// errHalted is the cause of a StallError that only lists blocks left
// running after a thread's error stopped the launch.
var errHalted = errors.New("gpu: a thread's error stopped the launch")

// maxStuck bounds the unfinished threads a StallError lists.
const maxStuck = 1 << 12

// A StallError reports a launch that stopped making progress: a deadlock
// (every live thread waits at a barrier or collective none can complete),
// a context that ended, or LaunchConfig.Timeout. It lists where every unfinished
// thread was, but for those LeftRunning names as unable to report.
type StallError struct {
	Launch string
	// Cause is ErrDeadlock, ErrLivelock, or the context's cause:
	// context.Canceled, context.DeadlineExceeded, an ErrTimeout, or a cause
	// of the caller's. When a thread's error (a panic, a divergence)
	// stopped the launch and blocks were left running, it says so.
	Cause error
	// Err is the context's error when the context ended the launch.
	Err     error
	Threads []Stuck // the first unfinished threads in global order, at most 4096
	More    int     // unfinished threads after those listed, in global order
	// NotStarted counts threads of started blocks that never started.
	NotStarted int
	// Unstarted counts the blocks the launch never started, of Blocks.
	Unstarted, Blocks int
	// LeftRunning are blocks Launch returned without: a thread of each
	// kept running after the stop without calling into the runtime, as a
	// `for {}` does, or recovering every panic the runtime stops it with,
	// which no stop can end. Their goroutines outlive Launch. Under the
	// Fibers executor a block's threads share one goroutine, so the other
	// unfinished threads of such a block cannot report where they were:
	// Threads and NotStarted leave them out, and Error says so.
	LeftRunning []Dim3

	block  Dim3 // the launch's block extent, for coordinates
	warp   int  // the launch's warp size, for grouping threads by warp
	fibers bool // the launch ran under the Fibers executor
}

// A Stuck is where an unfinished thread was when its launch stopped.
type Stuck struct {
	Block    Dim3 // blockIdx
	Thread   Dim3 // threadIdx
	BlockID  int
	Rank     int // linear index in the block
	GlobalID int
	// At is the barrier or collective the thread waited at, as
	// "syncthreads" or "shfl(mask 0xffffffff)", "running" for a thread
	// that was running or spinning, or, for one polling an element with
	// weak loads, a sentence saying so that suggests LoadVolatile or
	// AtomicLoad.
	At string
	// Access is the memory access it was making when stopped, such as
	// `load global "flag"[0]`, or empty.
	Access string
	Site   Site // the kernel line of the wait or of the last runtime call
}

// Error lists the cause, then per block the unfinished threads grouped by
// where they were (see writeBlock for the form, which stays short for
// blocks of any size).
func (e *StallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpu: %s: stopped: %v", e.Launch, e.Cause)
	if len(e.Threads) > 0 {
		b.WriteString("; unfinished threads:")
	}
	for i := 0; i < len(e.Threads); {
		j := i
		for j < len(e.Threads) && e.Threads[j].BlockID == e.Threads[i].BlockID {
			j++
		}
		writeBlock(&b, e.Threads[i:j], e.block, e.warp)
		i = j
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n\t... and %d more unfinished threads after these", e.More)
	}
	if e.NotStarted > 0 {
		fmt.Fprintf(&b, "\n\t%d threads of started blocks never started", e.NotStarted)
	}
	if e.Unstarted > 0 {
		fmt.Fprintf(&b, "\n\t%d of the launch's %d blocks never started", e.Unstarted, e.Blocks)
	}
	for _, blk := range e.LeftRunning {
		fmt.Fprintf(&b, "\n\tblock %v left running: a thread of it kept running after the stop (a loop with no access, barrier or other runtime call, or one that recovers the panic each runtime call stops it with)", blk)
		if e.fibers {
			b.WriteString("; its other unfinished threads share that thread's goroutine under the Fibers executor, so they could not report and are not listed")
		}
	}
	return b.String()
}

// Unwrap returns the cause and the context's error.
func (e *StallError) Unwrap() []error { return []error{e.Cause, e.Err} }

// stallReport collects where the threads of a stopped launch were.
type stallReport struct {
	mu         sync.Mutex
	cause      error // ErrDeadlock, when the runtime stopped the launch
	threads    []Stuck
	more       int
	notStarted int
	// leftRunning are the blocks Launch returned without, because a
	// thread of each never called into the runtime after the stop.
	leftRunning []Dim3
}

// stall stops the launch because it cannot make progress, and asks every
// unfinished thread to report where it is as it unwinds.
func (l *launch) stall(cause error) {
	l.report.mu.Lock()
	if l.report.cause == nil {
		l.report.cause = cause
	}
	l.report.mu.Unlock()
	l.reporting.Store(true)
	l.halt()
}

// noteStuck records where t was when the launch stopped it: at is what t
// waited at, read under its block's lock, and r is the value its root
// recovered. It runs in the deferred recover, on top of the unwinding
// stack, so the stack still shows the kernel's line.
func (l *launch) noteStuck(t *Thread, at waitInfo, r any) {
	s := Stuck{Block: t.blk.idx, Thread: t.ThreadIdx(), BlockID: t.blk.id, Rank: t.rank, GlobalID: t.gid, At: "running"}
	if at.waiting() {
		s.At = at.name()
		if at.mask != 0 {
			s.At = fmt.Sprintf("%s(mask %#x)", s.At, at.mask)
		}
	}
	if t.weakSpinning(r) {
		s.At = weakSpinAt
	}
	if f, ok := r.(*fault); ok && f.m != nil {
		s.Access = fmt.Sprintf("%v %v[%d]", f.op, f.m, f.i)
	} else if t.spinMem != nil {
		s.Access = fmt.Sprintf("%v %v[%d]", t.spinOp, t.spinMem, t.spinIdx)
	}
	l.report.mu.Lock()
	defer l.report.mu.Unlock()
	if l.report.keeps(s.GlobalID) {
		s.Site = l.panicSite()
		l.report.keep(s)
	}
}

// keeps reports whether the thread of global id gid is among the first
// maxStuck unfinished threads in global order noted so far; once the list
// is full it counts one more thread unlisted, gid's or the one it pushes
// out.
func (r *stallReport) keeps(gid int) bool {
	if len(r.threads) < maxStuck {
		return true
	}
	r.more++
	return gid < r.threads[0].GlobalID
}

// keep lists s, in place of the last listed in global order once the list
// is full.
func (r *stallReport) keep(s Stuck) {
	if len(r.threads) < maxStuck {
		heap.Push(stuckHeap{r}, s)
		return
	}
	r.threads[0] = s
	heap.Fix(stuckHeap{r}, 0)
}

// stuckHeap orders a stall report's listed threads as a heap whose root
// is the last in global order, so that the report keeps the first
// maxStuck unfinished threads in global order whichever note first.
type stuckHeap struct{ r *stallReport }

func (h stuckHeap) Len() int           { return len(h.r.threads) }
func (h stuckHeap) Less(i, j int) bool { return h.r.threads[i].GlobalID > h.r.threads[j].GlobalID }
func (h stuckHeap) Swap(i, j int)      { h.r.threads[i], h.r.threads[j] = h.r.threads[j], h.r.threads[i] }
func (h stuckHeap) Push(x any)         { h.r.threads = append(h.r.threads, x.(Stuck)) }
func (h stuckHeap) Pop() any {
	t := h.r.threads
	h.r.threads = t[:len(t)-1]
	return t[len(t)-1]
}

// noteNotStarted counts threads a stopped block never started.
func (l *launch) noteNotStarted(n int) {
	l.report.mu.Lock()
	l.report.notStarted += n
	l.report.mu.Unlock()
}

// panicSite returns the kernel line on the stack of the runtime's own
// panic being recovered: below runtime.gopanic, the first frame outside
// this package after one inside it, as [Thread.Caller] finds it.
func (l *launch) panicSite() Site {
	var pcs [64]uintptr
	n := runtime.Callers(1, pcs[:])
	if i := frameOf(pcs[:n], "runtime.gopanic"); i >= 0 {
		var st stack
		copy(st[:], pcs[i+1:n])
		return l.d.sites.lookup(&st)
	}
	return Site{}
}

// frameOf returns the index in pcs of the frame of function name, or -1.
func frameOf(pcs []uintptr, name string) int {
	for i, pc := range pcs {
		if f := runtime.FuncForPC(pc); f != nil && f.Name() == name {
			return i
		}
	}
	return -1
}

// stallError builds the launch's StallError, or returns nil if the launch
// did not stall. ctxErr is the context's error and cause its cause.
func (l *launch) stallError(ctxErr, cause error) *StallError {
	r := &l.report
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cause == nil && ctxErr == nil && len(r.leftRunning) == 0 {
		return nil
	}
	e := &StallError{Launch: l.g.Name, Cause: r.cause, Threads: r.threads, More: r.more, NotStarted: r.notStarted, LeftRunning: r.leftRunning, block: l.g.BlockDim, warp: l.g.WarpSize, fibers: l.cfg.Executor == Fibers}
	e.Blocks = l.g.Blocks
	e.Unstarted = l.g.Blocks - int(min(l.next.Load(), int64(l.g.Blocks)))
	if e.Cause == nil {
		e.Cause, e.Err = cause, ctxErr
	}
	if e.Cause == nil {
		e.Cause = errHalted // a thread's error stopped it, and blocks were left running
	}
	slices.SortFunc(e.Threads, func(a, b Stuck) int { return cmp.Compare(a.GlobalID, b.GlobalID) })
	return e
}
