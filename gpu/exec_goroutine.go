package gpu

import (
	"runtime"
	"sync"
)

// goExec is the Goroutines executor: one goroutine per thread, taken from
// the device's workers (see workerPool), and a mutex around the block
// state. A thread waits on its own wake channel, which its state keeps
// across launches (see statePool): a barrier round's release sends on
// each waiter's.
type goExec struct {
	s  *slot
	mu sync.Mutex // guards the slot's block barrier state
}

func (e *goExec) run() {
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
		e.wake(e.s.blk.bar.spare)
		e.mu.Unlock()
		return false
	}
	e.mu.Unlock()
	e.await(t)
	t.check()
	return false
}

// wake wakes the threads of ranks ws, the waiters of a completed round.
// Each waits on its wake channel, empty while it waits: a thread takes
// its one wake-up before it can wait again, and a stopped thread's is
// emptied before its state is reused. The send synchronizes before the
// waiter's receive returns. Preconditions: e.mu held.
func (e *goExec) wake(ws []int32) {
	for _, r := range ws {
		e.s.threads[r].wakeCh <- struct{}{}
	}
}

func (e *goExec) exit(t *Thread) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wake(e.s.blk.depart(t))
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
