package gpu

import "runtime"

// A workerPool keeps a device's idle goroutines between launches: those
// that ran the launches' block slots, and those of the Goroutines
// executor, which runs each thread on a goroutine of its own, so that
// launch after launch reuses them instead of starting and ending new ones.
// A reused goroutine keeps the stack an observer's calls grew (see
// restFrame), where a new one starts small and grows again.
// Under the race detector a goroutine that ends leaves state the race
// runtime does not give back, so per-launch goroutines made memory grow
// with every launch; a reused one keeps its state for its whole life.
//
// The pool holds at most max workers, as many as the device's resident
// threads; workers given back past that end. Like the fiber pool, it
// refers to nothing of its Device, so that a Device dropped without Close
// can be collected, and the cleanup then ends the idle workers.
type workerPool struct {
	idle idlePool[*worker] // one shard: a worker is tied to no slot
}

// A worker is a goroutine that runs one task after another, received on
// tasks; closing tasks ends it, and it closes done as it ends.
type worker struct {
	p     *workerPool
	tasks chan task
	done  chan struct{}
}

// A task is a function for a worker to run, and what it tells once the
// function has returned and the worker is back in its pool.
type task struct {
	fn   func()
	done doner
}

// A doner is told that a task is done: a sync.WaitGroup, or a launch's
// count of its running slots (slotsLeft).
type doner interface{ Done() }

// newWorkerPool returns d's worker pool and arranges for it to be closed
// once d is unreachable.
func newWorkerPool(d *Device) *workerPool {
	p := &workerPool{idle: idlePool[*worker]{max: d.cfg.SMs * d.cfg.MaxThreadsPerSM}}
	runtime.AddCleanup(d, (*workerPool).close, p)
	return p
}

// Go runs fn on an idle worker, or on a new one if none is idle, and calls
// done.Done when fn has returned and the worker is back in the pool, so
// that a launch that waits for done finds its workers idle when it
// launches again. The call of Go synchronizes before fn starts, and fn's
// return before the call of done.Done. A fn that ends its goroutine
// (runtime.Goexit) ends the worker with it, still calling done.Done.
func (p *workerPool) Go(done doner, fn func()) {
	w, ok := p.idle.take(0)
	if !ok {
		w = &worker{p: p, tasks: make(chan task), done: make(chan struct{})}
		go w.loop()
	}
	w.tasks <- task{fn, done}
}

// put gives w back to the pool and reports whether it was kept; a worker
// the pool has no room for, or returned after close, is not, and ends.
func (p *workerPool) put(w *worker) bool { return p.idle.put(0, []*worker{w}) == 1 }

// loop is a worker's body: run each task received, until the pool ends
// the worker or has no room for it.
func (w *worker) loop() {
	defer close(w.done)
	for {
		t, ok := w.rest()
		if !ok || !w.run(t) {
			return
		}
	}
}

// run runs t, gives w back to the pool, then calls t's Done, and reports
// whether the pool kept w. If t.fn ends the goroutine, the deferred Done
// still runs.
func (w *worker) run(t task) (kept bool) {
	returned := false
	defer func() {
		if !returned {
			t.done.Done()
		}
	}()
	t.fn()
	returned = true
	kept = w.p.put(w)
	t.done.Done()
	return kept
}

// rest waits for the worker's next task; ok is false once the pool ended
// the worker. A function of its own, it names an idle worker in a stack
// listing: (*worker).rest is on the stack of every goroutine a device
// keeps idle for the Goroutines executor, and of no other.
//
// It holds restFrame bytes of stack while it waits.
//
//go:noinline
func (w *worker) rest() (t task, ok bool) {
	var hold [restFrame]byte
	t, ok = <-w.tasks
	return t, ok && hold[len(hold)-1] == 0
}

// close ends every idle worker and makes put end those given back later.
// It is idempotent. The end of every idle worker synchronizes before close
// returns.
func (p *workerPool) close() {
	idle := p.idle.drain()
	for _, w := range idle {
		close(w.tasks)
	}
	for _, w := range idle {
		<-w.done
	}
}
