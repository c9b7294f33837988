package gpu

import (
	"iter"
	"runtime"
)

// A fiberPool keeps a device's idle fibers between its launches, so that
// launch after launch reuses the same coroutines instead of making and
// ending new ones. Ending a coroutine is what costs memory for good under
// the race detector: the runtime destroys a finished coroutine without
// ending its race-runtime thread state, which is never reclaimed, while a
// reused coroutine keeps one such state for its whole life.
//
// The pool holds at most max fibers, as many as the device's resident
// threads, the most one launch can use; fibers returned past that end at
// once. It is allocated apart from its Device and refers to nothing of
// it, so that a Device dropped without Close can be collected, and the
// cleanup then ends the pool's fibers.
//
// Idle fibers are kept per slot index: a slot takes back the fibers the
// slot of its index gave back, and another slot's only when it has none.
// A slot's fibers were made together, on one processor, and a switch
// writes each fiber's state; a slot running on fibers made by two slots
// shares their cache lines with the other slot, on the other processor,
// at every switch, which made barriers markedly slower.
type fiberPool struct {
	idle idlePool[*fiber]
}

// newFiberPool returns d's pool and arranges for it to be closed once d
// is unreachable.
func newFiberPool(d *Device) *fiberPool {
	p := &fiberPool{idle: idlePool[*fiber]{max: d.cfg.SMs * d.cfg.MaxThreadsPerSM}}
	runtime.AddCleanup(d, (*fiberPool).close, p)
	return p
}

// get returns an idle fiber of the pool, or a new one if none is idle,
// running for e. A put of the fiber synchronizes before the get that
// returns it, so the goroutine that resumes it next sees every write of
// the goroutine that ran it last.
func (p *fiberPool) get(e *fiberExec) *fiber {
	f, ok := p.idle.take(e.s.index)
	if !ok {
		f = &fiber{}
		f.next, f.stop = iter.Pull(f.loop)
	}
	f.ex = e
	return f
}

// put gives the idle fibers of slot index i back to the pool, and ends
// those it has no room for, or all of them once the pool is closed. put
// synchronizes before the get that returns each of them.
func (p *fiberPool) put(i int, fs []*fiber) {
	for _, f := range fs[p.idle.put(i, fs):] {
		f.stop()
	}
}

// close ends every idle fiber and makes put end those given back later.
// It is idempotent.
func (p *fiberPool) close() {
	for _, f := range p.idle.drain() {
		f.stop()
	}
}

// isClosed reports whether close was called.
func (p *fiberPool) isClosed() bool { return p.idle.isClosed() }
