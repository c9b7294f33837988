package gpu

import (
	"runtime"
	"sync"
)

// goExec is the Goroutines executor: one goroutine per thread, taken from
// the device's workers (see workerPool), a mutex around the block state,
// and a channel closed per barrier round.
type goExec struct {
	s   *slot
	mu  sync.Mutex    // guards the slot's block barrier state and gen
	gen chan struct{} // closed when the current barrier round completes
}

func (e *goExec) run() {
	e.gen = make(chan struct{})
	var wg sync.WaitGroup
	for i := range e.s.threads {
		if o := e.s.blk.order; o != nil {
			i = o[i]
		}
		t := &e.s.threads[i]
		wg.Add(1)
		e.s.l.d.workers.Go(&wg, func() { e.s.runThread(t) })
	}
	wg.Wait()
}

func (e *goExec) barrier(t *Thread, pred bool) bool {
	e.mu.Lock()
	if e.s.blk.arrive(t, pred) {
		e.next()
		e.mu.Unlock()
		return false
	}
	ch := e.gen
	e.mu.Unlock()
	select {
	case <-ch:
	case <-e.s.l.stopCh:
		t.stopped()
	}
	t.check()
	return false
}

// next wakes the waiters of the completed round. Preconditions: e.mu held.
func (e *goExec) next() {
	close(e.gen)
	e.gen = make(chan struct{})
}

func (e *goExec) exit(t *Thread) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.s.blk.depart(t) != nil {
		e.next()
	}
}

func (e *goExec) yield(*Thread) { runtime.Gosched() }

func (e *goExec) close() {}

func (e *goExec) lock()   { e.mu.Lock() }
func (e *goExec) unlock() { e.mu.Unlock() }

func (e *goExec) wait(t *Thread) {
	e.mu.Unlock()
	e.await(t)
}

// await blocks t until it is woken or the launch stops.
func (e *goExec) await(t *Thread) {
	select {
	case <-t.wakeCh:
	case <-e.s.l.stopCh:
		t.stopped()
	}
}

func (e *goExec) wakeOne(t *Thread) { t.wakeCh <- struct{}{} }

func (e *goExec) waitOutside(t *Thread) {
	e.await(t)
	e.mu.Lock()
	e.s.blk.unparkOutside(t)
	e.mu.Unlock()
}

func (e *goExec) wakeOutside(t *Thread) { t.wakeCh <- struct{}{} }
