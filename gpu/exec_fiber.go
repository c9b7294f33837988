package gpu

import (
	"iter"
	"runtime"
)

// fiberExec is the Fibers executor. The slot's goroutine drives the block:
// it resumes a fiber (an iter.Pull coroutine), which runs threads one after
// another as plain calls until one must wait; the waiting thread keeps that
// fiber, and the driver resumes another to go on. A barrier-free block thus
// runs on one fiber with no switch at all, and a thread that waits costs one
// coroutine switch. Fibers are kept across blocks, so a slot creates at most
// as many as its block has threads.
//
// Only one fiber of a slot runs at a time, and every switch is a coroutine
// handoff, so the block state needs no lock.
type fiberExec struct {
	s       *slot
	all     []*fiber  // every fiber the slot created, for close
	pool    []*fiber  // idle fibers
	runq    []*Thread // waiting threads that may go on, in FIFO order
	head    int       // first live entry of runq
	started int       // threads of the block started so far
}

// A fiber is a coroutine that runs threads. It is parked while a thread on
// it waits, and idle when it has run out of threads to start.
type fiber struct {
	ex     *fiberExec
	next   func() (struct{}, bool)
	stop   func()
	yield  func(struct{}) bool
	parked bool
}

func (e *fiberExec) run() {
	e.started, e.runq, e.head = 0, e.runq[:0], 0
	n, l := e.s.l.g.BlockSize, e.s.l
	for {
		if l.stop.Load() {
			e.releaseWaiters()
		}
		// Start new threads before resuming waiting ones: a thread that
		// yields while spinning may be waiting for one not started yet.
		var f *fiber
		switch {
		case e.started < n && !l.stop.Load():
			f = e.idle()
		case e.head < len(e.runq):
			f = e.pop().fib
		default:
			return
		}
		f.next()
		if !f.parked {
			e.pool = append(e.pool, f)
		}
	}
}

// startThreads is a fiber's work: start unstarted threads one after another
// until none are left or one of them parks this fiber.
func (e *fiberExec) startThreads(f *fiber) {
	for e.more() {
		e.runSome(f)
	}
}

func (e *fiberExec) more() bool {
	return e.started < e.s.l.g.BlockSize && !e.s.l.stop.Load()
}

// runSome runs unstarted threads on f until none is left or one of them
// ends abnormally. One deferred recover covers the whole run rather than
// one per thread, which is most of a barrier-free thread's cost; after a
// panic the caller starts a new run.
func (e *fiberExec) runSome(f *fiber) {
	var t *Thread
	running := false
	defer func() {
		if running {
			e.s.result(t, recover(), false)
			e.exit(t)
		}
	}()
	for e.more() {
		t = &e.s.threads[e.started]
		e.started++
		t.fib, running = f, true
		e.s.l.kernel(t)
		running = false
		e.exit(t)
	}
}

func (f *fiber) loop(yield func(struct{}) bool) {
	f.yield = yield
	for {
		f.ex.startThreads(f)
		if !yield(struct{}{}) {
			return
		}
	}
}

// idle returns an idle fiber, creating one if none is left.
func (e *fiberExec) idle() *fiber {
	if n := len(e.pool); n > 0 {
		f := e.pool[n-1]
		e.pool = e.pool[:n-1]
		return f
	}
	f := &fiber{ex: e}
	f.next, f.stop = iter.Pull(f.loop)
	e.all = append(e.all, f)
	return f
}

func (e *fiberExec) push(t *Thread) { e.runq = append(e.runq, t) }

func (e *fiberExec) pop() *Thread {
	t := e.runq[e.head]
	e.head++
	if e.head == len(e.runq) {
		e.runq, e.head = e.runq[:0], 0
	}
	return t
}

// park suspends t's fiber until the driver resumes it, then ends t if the
// launch stopped meanwhile.
func (t *Thread) park() {
	f := t.fib
	f.parked = true
	ok := f.yield(struct{}{})
	f.parked = false
	if !ok {
		t.stopped()
	}
	t.check()
}

func (e *fiberExec) barrier(t *Thread, pred bool) {
	b := &e.s.blk
	if b.arrive(t, pred) {
		e.wake(b.bar.spare)
		return
	}
	t.park()
}

func (e *fiberExec) wake(ws []*Thread) {
	for _, w := range ws {
		e.push(w)
	}
}

func (e *fiberExec) exit(t *Thread) { e.wake(e.s.blk.depart(t)) }

func (e *fiberExec) yield(t *Thread) {
	if e.head == len(e.runq) && e.started == e.s.l.g.BlockSize {
		// Nothing else in this block can run: let other blocks' goroutines
		// have the processor instead of switching to ourselves.
		runtime.Gosched()
		return
	}
	e.push(t)
	t.park()
}

// releaseWaiters makes every thread waiting at a barrier runnable, so that
// it sees the stop and unwinds.
func (e *fiberExec) releaseWaiters() {
	b := &e.s.blk
	e.wake(b.bar.waiters)
	b.bar.waiters, b.bar.arrived, b.bar.count = b.bar.waiters[:0], 0, 0
}

// close ends every fiber of the slot. A fiber still parked (its launch
// stopped, or the slot is unwinding from a runtime.Goexit) sees its yield
// fail and unwinds its thread; stopping a finished fiber does nothing.
func (e *fiberExec) close() {
	for _, f := range e.all {
		f.stop()
	}
	e.all, e.pool = nil, nil
}
