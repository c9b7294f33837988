package gpu

import (
	"iter"
	"runtime"
	"sync"
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
type fiberPool struct {
	mu     sync.Mutex
	idle   []*fiber
	max    int
	closed bool
}

// newFiberPool returns d's pool and arranges for it to be closed once d
// is unreachable.
func newFiberPool(d *Device) *fiberPool {
	p := &fiberPool{max: d.cfg.SMs * d.cfg.MaxThreadsPerSM}
	runtime.AddCleanup(d, (*fiberPool).close, p)
	return p
}

// get returns an idle fiber of the pool, or a new one if none is idle,
// running for e. A put of the fiber synchronizes before the get that
// returns it, so the goroutine that resumes it next sees every write of
// the goroutine that ran it last.
func (p *fiberPool) get(e *fiberExec) *fiber {
	p.mu.Lock()
	f := p.take()
	p.mu.Unlock()
	if f == nil {
		f = &fiber{}
		f.next, f.stop = iter.Pull(f.loop)
	}
	f.ex, f.grow = e, e.s.l.cfg.Observer != nil
	return f
}

// take removes and returns the last idle fiber, or nil. Preconditions:
// p.mu held.
func (p *fiberPool) take() *fiber {
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	f := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return f
}

// put gives idle fibers back to the pool, and ends those it has no room
// for, or all of them once the pool is closed. put synchronizes before
// the get that returns each of them.
func (p *fiberPool) put(fs []*fiber) {
	p.mu.Lock()
	keep := 0
	if !p.closed {
		keep = min(len(fs), p.max-len(p.idle))
		p.idle = append(p.idle, fs[:keep]...)
	}
	p.mu.Unlock()
	for _, f := range fs[keep:] {
		f.stop()
	}
}

// close ends every idle fiber and makes put end those given back later.
// It is idempotent.
func (p *fiberPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, f := range idle {
		f.stop()
	}
}

// isClosed reports whether close was called.
func (p *fiberPool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
