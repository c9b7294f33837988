package gpu

import (
	"runtime"
	"slices"
	"sync"
)

// fiberExec is the Fibers executor. The slot's goroutine drives the block:
// it resumes a fiber (an iter.Pull coroutine), which runs threads one after
// another as plain calls until one must wait; the waiting thread keeps that
// fiber, and the driver resumes another to go on, or, at a barrier or warp
// collective, the waiting thread resumes it itself (see fiber.await). A
// barrier-free block thus runs on one fiber with no switch at all, and a
// thread that waits at a barrier costs one coroutine switch. A slot keeps
// its fibers across blocks, so it uses at most as many as its block has
// threads, and takes them from its device's pool (see fiberPool), which
// keeps them across launches.
//
// Only one fiber of a slot runs at a time, and every switch is a coroutine
// handoff, so the block state needs no lock.
type fiberExec struct {
	s       *slot
	all     []*fiber // every fiber the slot took from the pool, for close
	pool    []*fiber // idle fibers
	runq    []int32  // ranks of waiting threads that may go on, in FIFO order
	head    int      // first live entry of runq
	started int      // threads of the block started so far
	// spins counts the yields of a streak without progress; see
	// spinRound.
	spins int
	// depth counts the fibers held in a hand-off chain: suspended in
	// their call resuming the fiber above them (see fiber.await).
	depth int

	// Threads waiting outside the block (at a grid sync) are woken by other
	// slots' goroutines through the inbox.
	ext   int // threads of the block waiting outside it
	inMu  sync.Mutex
	inbox []*Thread
	kick  chan struct{} // signalled when the inbox fills
}

// A fiber is a coroutine that runs threads. It is parked while a thread on
// it waits, and idle when it has run out of threads to start. An idle
// fiber goes back to its device's pool when its slot ends, and runs for
// the slot that takes it next.
type fiber struct {
	ex     *fiberExec // the slot it runs for; nil while in the device's pool
	next   func() (struct{}, bool)
	stop   func()
	yield  func(struct{}) bool
	parked bool
}

func (e *fiberExec) run() {
	e.started, e.runq, e.head, e.ext = 0, e.runq[:0], 0, 0
	n, l := e.s.l.g.BlockSize, e.s.l
	for {
		if l.stop.Load() {
			e.releaseWaiters()
		}
		// Start new threads before resuming waiting ones: a thread that
		// yields while spinning may be waiting for one not started yet.
		if e.ext > 0 {
			e.drain()
		}
		if e.started == n && l.sched.kind == ScheduleDefault && l.turns == nil {
			e.resumeQueued()
		}
		var f *fiber
		switch {
		case e.started < n && !l.stop.Load():
			f = e.idle()
		case e.head < len(e.runq):
			f = e.pop().fib
			f.parked = false
		case e.ext > 0 && !l.stop.Load():
			e.awaitOutside()
			continue
		default:
			if l.stop.Load() && l.reporting.Load() && e.started < n {
				l.noteNotStarted(n - e.started)
			}
			return
		}
		f.next()
		if !f.parked {
			e.pool = append(e.pool, f)
		}
		if l.turns != nil {
			l.turns.pass(e.s.index)
		}
	}
}

// resumeQueued resumes queued threads in FIFO order for as long as
// nothing else needs the driver: every thread has started, the launch runs
// on and no thread waits outside the block. run calls it, under the default
// schedule with no turns to pass, to run a barrier-heavy block's rounds in
// a loop of its own, without run's other cases.
func (e *fiberExec) resumeQueued() {
	l := e.s.l
	for e.head < len(e.runq) && e.ext == 0 && !l.stop.Load() {
		f := e.s.threads[e.runq[e.head]].fib
		e.head++
		e.compact()
		f.parked = false
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
		if !running {
			return
		}
		if t.held {
			// t waits in a hand-off chain, and a thread above it ended
			// its fiber's goroutine (runtime.Goexit), which the resume
			// call t is held in goes on with: t did not, and ends as
			// a thread its launch stopped.
			t.held = false
			e.depth--
			e.s.result(t, abort{t: t, err: errStopped}, false)
		} else {
			e.s.result(t, recover(), false)
		}
		e.exit(t)
	}()
	for e.more() {
		if o := e.s.blk.order; o != nil {
			t = &e.s.threads[o[e.started]]
		} else {
			t = &e.s.threads[e.started]
		}
		e.started++
		t.fib, running = f, true
		e.s.l.kernel(t)
		running = false
		if t.recorded() {
			e.s.result(t, nil, true)
		}
		e.exit(t)
	}
}

// loop is a fiber's body. Each resumption after an idle yield runs
// threads for f.ex, which may be another slot's, of another launch, than
// the last: the driver that resumes f sets f.ex before it does.
func (f *fiber) loop(yield func(struct{}) bool) {
	f.yield = yield
	for {
		f.ex.startThreads(f)
		if !f.rest() {
			return
		}
	}
}

// rest hands idle f back to its driver and reports whether f is to run
// threads again, false once it is stopped. A function of its own, it names
// an idle fiber in a stack listing: (*fiber).rest is on the stack of every
// fiber a device keeps idle between launches, and of no other. It holds
// restFrame bytes of stack while it waits.
//
//go:noinline
func (f *fiber) rest() bool {
	var hold [restFrame]byte
	ok := f.yield(struct{}{})
	return ok && hold[len(hold)-1] == 0
}

// idle returns an idle fiber of the slot, or one from the device's pool
// if none is left.
func (e *fiberExec) idle() *fiber {
	if n := len(e.pool); n > 0 {
		f := e.pool[n-1]
		e.pool = e.pool[:n-1]
		return f
	}
	f := e.s.l.d.fibers.get(e)
	e.all = append(e.all, f)
	return f
}

// push queues t to resume. runq holds ranks rather than pointers, so
// that queueing writes no pointer the collector must see.
func (e *fiberExec) push(t *Thread) { e.runq = append(e.runq, int32(t.rank)) }

func (e *fiberExec) pop() *Thread {
	switch e.s.l.sched.kind {
	case ScheduleReverse:
		return e.popAt(len(e.runq) - 1)
	case ScheduleRandom:
		return e.popAt(e.head + e.s.rng.IntN(len(e.runq)-e.head))
	}
	t := &e.s.threads[e.runq[e.head]]
	e.head++
	e.compact()
	return t
}

// compact keeps runq's memory bounded by the threads in it: it empties
// runq when every entry is taken, and moves the live entries to the front
// once the taken ones are most of it. Threads that spin yield forever with
// runq never empty, and without the move it would grow by one entry per
// yield. Each move copies at most as many entries as were taken since the
// last, so a pop stays amortized O(1).
func (e *fiberExec) compact() {
	switch {
	case e.head == len(e.runq):
		e.runq, e.head = e.runq[:0], 0
	case e.head >= 16 && 2*e.head >= len(e.runq):
		n := copy(e.runq, e.runq[e.head:])
		e.runq, e.head = e.runq[:n], 0
	}
}

// popAt removes and returns runq entry i, keeping the others in order.
func (e *fiberExec) popAt(i int) *Thread {
	t := &e.s.threads[e.runq[i]]
	e.runq = append(e.runq[:i], e.runq[i+1:]...)
	if e.head == len(e.runq) {
		e.runq, e.head = e.runq[:0], 0
	}
	return t
}

// await is the wait of t, which a barrier or warp collective counted as
// waiting, on its fiber f. Rather than yield to the driver, which would resume the next
// runnable thread's fiber (two coroutine switches per waiting thread),
// a thread that has just arrived hands the block to that fiber itself:
// it resumes a fiber for an unstarted thread, or the first queued
// runnable thread's, and is held in that call, one switch. When control
// comes back down the chain (the fiber above it yielded) a thread its
// round released goes on; one still waiting yields to the fiber below
// it, which holds it. A stop releases nobody: the waiters go down the
// chain to the driver, which releases them as it always did (see
// releaseWaiters), so that a stopped thread is ended once, from the run
// queue, and leaves no rank behind in the barrier's waiters. So a block whose rounds
// alternate costs one switch per waiting thread: the last arrival of a
// round runs on, and each thread it released, suspended on the chain
// below it, is resumed by the yield of the one above. A held thread is
// in no run queue (see wake): it runs when the chain comes down to it.
//
// Only a fresh arrival hands off: a thread come back to that must still
// wait goes down the chain, so that a spinning thread that yields cannot
// keep a held thread below from ever running. Every hand-off is an
// arrival, and each chain is at most one fiber per thread deep, so the
// chain always comes back down to the driver. Hand-offs happen only under
// the default schedule without turns: the other schedules resume threads
// in an order of their own from the driver.
//
// await reports what the fiber's yield reported: false if the fiber is
// being stopped.
func (f *fiber) await(t *Thread) bool {
	e := f.ex
	if g := e.successor(); g != nil {
		t.held = true
		e.depth++
		g.next()
		t.held = false
		e.depth--
		if !g.parked {
			e.pool = append(e.pool, g)
		}
		if !t.parked {
			f.parked = false
			return true
		}
	}
	return f.yield(struct{}{})
}

// successor returns the fiber a thread arriving at a barrier hands the
// block to (see fiber.await), marked running: one for the next unstarted
// thread, or the first queued runnable thread's; nil if none, or if the
// driver has more to do than resume it.
func (e *fiberExec) successor() *fiber {
	l := e.s.l
	if l.sched.kind != ScheduleDefault || l.turns != nil || e.ext > 0 || l.stop.Load() {
		return nil
	}
	if e.started < l.g.BlockSize {
		return e.idle()
	}
	if e.head < len(e.runq) {
		f := e.pop().fib
		f.parked = false
		return f
	}
	return nil
}

// park suspends t's fiber until the driver resumes it, then ends t if the
// launch stopped meanwhile. The driver clears f.parked before it resumes
// f, so that the resumed thread writes nothing of its fiber.
func (t *Thread) park() {
	t.fib.parked = true
	t.resume(t.fib.yield(struct{}{}))
}

// resume ends t, just resumed from a suspension whose yield reported ok,
// if its fiber is being stopped or its launch stopped meanwhile.
func (t *Thread) resume(ok bool) {
	if !ok || t.stop.Load() {
		t.stopped()
	}
	t.weakN = 0 // what check does besides
}

// barrier counts t at the barrier. If t must wait, it marks t's fiber
// parked and reports true: the caller suspends the fiber (see
// Thread.SyncThreads).
func (e *fiberExec) barrier(t *Thread, pred bool) bool {
	b := &e.s.blk
	if b.arrive(t, pred) {
		e.wake(b.bar.spare)
		return false
	}
	t.fib.parked = true
	return true
}

// wake queues the threads of ranks ws to resume, except those held in a
// hand-off chain, which run when the chain comes down to them (see
// fiber.await). An exit that releases nobody, every exit of a
// barrier-free kernel, writes nothing.
func (e *fiberExec) wake(ws []int32) {
	switch {
	case len(ws) == 0:
	case e.depth == 0:
		e.runq = append(e.runq, ws...)
	default:
		for _, r := range ws {
			if !e.s.threads[r].held {
				e.runq = append(e.runq, r)
			}
		}
	}
}

func (e *fiberExec) exit(t *Thread) { e.wake(e.s.blk.depart(t)) }

func (e *fiberExec) yield(t *Thread) {
	if e.head == len(e.runq) && e.depth == 0 && e.started == e.s.l.g.BlockSize && e.s.l.turns == nil {
		// Nothing else in this block can run: let other blocks' goroutines
		// have the processor instead of switching to ourselves, unless
		// threads woken from a grid sync wait for the driver. A thread
		// held in a hand-off chain below may run: the park below lets
		// the chain come down to it.
		runtime.Gosched()
		if e.ext == 0 {
			return
		}
	}
	e.spinRound(t)
	e.pushYielder(t)
	t.park()
}

// preempt yields t, which has just fenced in a Deterministic launch
// under ScheduleRandom, half the time by the block's seeded source: the
// token then passes on, and other blocks may run between the fence and
// what follows it. Without it a thread that never waits runs to its end
// in one turn, so the order of two blocks' fences would always be the
// order of what each did after its fence, and races that hang on that
// order (a fence before a ticket's atomicInc) would never show.
func (e *fiberExec) preempt(t *Thread) {
	if e.s.rng.IntN(2) == 0 {
		return
	}
	e.pushYielder(t)
	t.park()
}

// pushYielder queues t, which yields while spinning, to resume after
// every thread queued now in every schedule: a yield is not a wake-up, so
// ScheduleReverse's most-recently-woken-first would resume the spinning
// thread before the threads it waits for, forever.
func (e *fiberExec) pushYielder(t *Thread) {
	if e.s.l.sched.kind != ScheduleReverse {
		e.push(t)
		return
	}
	if e.head > 0 {
		e.head--
		e.runq[e.head] = int32(t.rank)
		return
	}
	e.runq = slices.Insert(e.runq, 0, int32(t.rank))
}

// spinRound gives up the processor when the block's threads seem to spin
// on a flag another block sets: they have yielded, between them, as many
// times as the block has threads, and no yield of the streak followed a
// write that changed memory. Switching among spinning threads would hold
// the processor until Go's scheduler preempts the goroutine, while the
// block that would set the flag waits for a processor. The test is on
// writes, not time: a block whose threads spin on flags that threads of
// their own block set keeps making progress and keeps its processor, and
// kernels that use atomics heavily are not charged a switch per streak.
func (e *fiberExec) spinRound(t *Thread) {
	if t.progress {
		e.spins = 0
		return
	}
	e.spins++
	if e.spins >= e.started {
		e.spins = 0
		runtime.Gosched()
	}
}

// releaseWaiters makes every thread waiting at a barrier or collective of
// the block runnable, so that it sees the stop and unwinds. Threads
// waiting outside the block are ended by close.
func (e *fiberExec) releaseWaiters() {
	b := &e.s.blk
	e.wake(b.bar.waiters)
	b.bar.waiters, b.bar.arrived, b.bar.count = b.bar.waiters[:0], 0, 0
	b.releaseAll(e.push)
}

func (e *fiberExec) lock()   {}
func (e *fiberExec) unlock() {}

func (e *fiberExec) wait(t *Thread) { t.park() }

// wakeOne queues t, unless a hand-off chain holds it (see fiber.await).
func (e *fiberExec) wakeOne(t *Thread) {
	if !t.held {
		e.push(t)
	}
}

func (e *fiberExec) waitOutside(t *Thread) {
	e.ext++
	t.park()
}

func (e *fiberExec) wakeOutside(t *Thread) {
	e.inMu.Lock()
	e.inbox = append(e.inbox, t)
	e.inMu.Unlock()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// awaitOutside waits until a thread waiting outside the block is woken, or
// the launch stops. A deterministic launch passes the token around
// meanwhile instead of blocking.
func (e *fiberExec) awaitOutside() {
	l := e.s.l
	if l.turns != nil {
		l.turns.pass(e.s.index)
		return
	}
	select {
	case <-e.kick:
	case <-l.stopCh:
	}
}

// drain makes the threads woken from outside the block runnable.
func (e *fiberExec) drain() {
	e.inMu.Lock()
	in := e.inbox
	e.inbox = nil
	e.inMu.Unlock()
	for _, t := range in {
		e.ext--
		e.s.blk.unparkOutside(t)
		e.push(t)
	}
}

// close gives the slot's idle fibers back to the device's pool and ends
// the others. A fiber still parked (its launch stopped, or the slot is
// unwinding from a runtime.Goexit) sees its yield fail and unwinds its
// thread; stopping a finished fiber (one a Goexit ended) does nothing.
func (e *fiberExec) close() {
	for _, f := range e.pool {
		f.ex = nil // marks it idle; an idle fiber keeps no launch alive
	}
	for _, f := range e.all {
		if f.ex != nil {
			f.stop()
		}
	}
	e.s.l.d.fibers.put(e.s.index, e.pool)
	e.all, e.pool = nil, nil
}

// restFrame is the stack an idle fiber or worker holds while it waits in
// its rest: a quarter of the 4 KiB to which a goroutine's stack grows at
// its first observer call, under the kernel's frames (or a slot's block
// start, under the slot's). The collector halves the stack of a goroutine
// that uses less than a quarter of it, and an idle goroutine's own frames
// use far less, so without the hold every collection undid the growth of
// the idle fibers (between launches, and within one those waiting for a
// thread to run), and their next threads copied the stack again. The
// hold is read after the wait, so that the compiler keeps it in the
// frame. A stack is grown where a call overflows it, not ahead: a fiber
// whose threads make no observed call (most of a micro kernel's) keeps
// its first 2 KiB.
const restFrame = 1 << 10
