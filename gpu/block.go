package gpu

import "sync"

// block is the state of the block a slot is running. Its barrier fields are
// guarded by the executor: the fiber executor runs a block on one goroutine
// at a time, the goroutine executor holds its mutex.
type block struct {
	l       *launch
	exec    executor
	id      int
	idx     Dim3
	threads []Thread // the slot's threads
	live    int      // threads whose kernel has not returned
	bar     barrier

	parked  int         // threads waiting at a barrier or collective of the block
	slow    bool        // a thread has waited, a warp op ran or the launch is cooperative
	warpOps bool        // a warp collective ran: warps is tracked
	warps   []warpState // per warp, once warpOps
	tiles   []*tileRound
	// freeRounds and freeTiles are completed rounds no thread reads any
	// more, for the block's next collectives and tile syncs: a block
	// ends with every round free, as every thread lets go at its exit.
	freeRounds []*round
	freeTiles  []*tileRound
	conv       []*Thread // threads waiting at a convergence point
	warned     []Site    // sites already warned about (DivergenceWarn)
	order      []int     // thread start order under a non-default Schedule
	rounds     int       // barriers and collectives completed: progress, for the watches
	quiet      quiet
	ll         livelock
	slot       int // the index of the slot running the block

	// Guarded by the launch's coop.mu, in cooperative launches.
	gridWait    int  // threads of the block waiting at a grid sync
	gridStalled bool // every live thread of the block waits

	shMu      sync.Mutex // guards the shared-memory fields
	shared    []*Memory  // static shared arrays, in declaration order
	sharedTop int        // bytes of static shared memory allocated
	dyn       *Memory    // dynamic shared memory, allocated on first use

	// fenceSC and warpFenceSC order the fence.sc reports of the block's
	// threads, of block and of warp scope, to a pair of sequencing
	// observers (see Thread.observeFence); warpFenceSC is made, one per
	// warp, only when two observers sequence.
	fenceSC     sync.Mutex
	warpFenceSC []sync.Mutex
}

// barrier is the state of a block's __syncthreads.
type barrier struct {
	arrived int // threads waiting in this round
	count   int // of which passed a true predicate
	// waiters are the ranks of the arrived threads other than the last,
	// in arrival order: ranks rather than pointers, so that recording an
	// arrival writes no pointer the collector must see.
	waiters []int32
	spare   []int32 // the previous round's waiters, reused
	// lastCount and lastN are the true predicates and the participants
	// of the last completed round. A thread reads them after it leaves
	// a round and before it arrives at the next, which cannot complete
	// without it, so they are still its round's.
	lastCount, lastN int
}

func (b *block) reset(id int) {
	b.id, b.idx, b.live = id, b.l.g.GridDim.index(id), b.l.g.BlockSize
	b.bar.arrived, b.bar.count, b.bar.waiters = 0, 0, b.bar.waiters[:0]
	b.shared, b.sharedTop, b.dyn = nil, 0, nil
	b.parked, b.warpOps, b.warned, b.slow = 0, false, nil, b.l.coop != nil
	b.setStuck(false)
	b.quiet = quiet{}
	if b.l.window > 0 {
		b.resetLivelock()
	}
}

// arrive counts t at the barrier. It reports whether t completed it; if
// not, t has been added to the waiters and must wait.
func (b *block) arrive(t *Thread, pred bool) bool {
	b.bar.arrived++
	if pred {
		b.bar.count++
	}
	if b.bar.arrived < b.live {
		b.bar.waiters = append(b.bar.waiters, int32(t.rank))
		t.at = waitInfo{kind: waitSyncThreads}
		b.park(t)
		return false
	}
	b.release(t)
	return true
}

// depart records that t's kernel ended. Threads that ended count as
// arrived, so the barrier completes once every live thread is waiting; it
// reports the released waiters, if that happened. It is small enough to
// inline: a block no thread waits in pays a few compares per exit.
func (b *block) depart(t *Thread) []int32 {
	b.live--
	t.done, t.stop = true, &b.l.ended
	if b.slow {
		return b.departSlow(t)
	}
	return nil
}

// departSlow is depart when threads may be waiting for t. After a stop,
// an exit completes no barrier or collective: the threads waiting there
// see the stop themselves and report where they waited, where a round
// completed by the exits of stopped threads would let them leave it
// first.
func (b *block) departSlow(t *Thread) []int32 {
	stopped := b.l.stop.Load()
	if b.warpOps {
		b.exitWarp(t, stopped)
	}
	var ws []int32
	if b.bar.arrived > 0 && b.bar.arrived >= b.live && !stopped {
		ws = b.release(&b.threads[b.bar.waiters[0]])
	}
	if b.l.coop != nil {
		b.l.coop.exit(b)
	} else if b.parked == b.live && b.parked > 0 {
		b.checkStall()
	}
	return ws
}

// release completes the barrier round: it records the round's results
// for every participant, marks the waiters as running (clearing what they
// wait at, which a stopped thread keeps to report), reports the round to
// the observer and returns the ranks of the waiters to wake. The returned
// slice stays valid until the next release.
func (b *block) release(by *Thread) []int32 {
	ws := b.bar.waiters
	if b.l.checks() && (b.live < b.l.g.BlockSize || b.sitesDiffer(by, ws)) {
		b.barrierDiverged(by, ws)
	}
	for _, r := range ws {
		w := &b.threads[r]
		w.at = waitInfo{}
		b.unpark(w)
	}
	b.bar.lastCount, b.bar.lastN = b.bar.count, b.bar.arrived
	if by.obs != nil {
		b.l.syncObserved(by, Sync{Kind: SyncThreads, Block: b.id, Warp: -1})
	}
	b.bar.waiters, b.bar.spare = b.bar.spare[:0], ws
	b.bar.arrived, b.bar.count = 0, 0
	b.rounds++
	return ws
}

// SyncThreads is CUDA's __syncthreads: the thread waits until every thread
// of its block that has not exited reaches a SyncThreads.
//
// In the terminology of [the Go memory model], every access a thread of the
// block makes before a barrier round "synchronizes before" every access any
// thread of the block makes after that round.
//
// [the Go memory model]: https://go.dev/ref/mem
//
//go:noinline
func (t *Thread) SyncThreads() {
	// The exported barriers all wait the same way, in two lines of their
	// own rather than a shared function: a thread that waits on a fiber
	// suspends from await, called from the exported function's frame, so
	// that, resumed, it returns through the coroutine runtime's frames,
	// await's and this one to the kernel, where every frame between would
	// cost a return the processor mispredicts after a coroutine switch.
	// The releaser clears what the thread waits at (see release).
	t.own("SyncThreads")
	t.mark()
	if t.blk.exec.barrier(t, false) {
		t.resume(t.fib.await(t))
	}
}

// SyncThreadsCount is __syncthreads_count: SyncThreads that returns how
// many participating threads passed a true pred.
//
//go:noinline
func (t *Thread) SyncThreadsCount(pred bool) int {
	t.own("SyncThreadsCount")
	t.mark()
	if t.blk.exec.barrier(t, pred) {
		t.resume(t.fib.await(t))
	}
	return t.blk.bar.lastCount
}

// SyncThreadsAnd is __syncthreads_and: SyncThreads that reports whether
// every participating thread passed a true pred.
//
//go:noinline
func (t *Thread) SyncThreadsAnd(pred bool) bool {
	t.own("SyncThreadsAnd")
	t.mark()
	if t.blk.exec.barrier(t, pred) {
		t.resume(t.fib.await(t))
	}
	return t.blk.bar.lastCount == t.blk.bar.lastN
}

// SyncThreadsOr is __syncthreads_or: SyncThreads that reports whether any
// participating thread passed a true pred.
//
//go:noinline
func (t *Thread) SyncThreadsOr(pred bool) bool {
	t.own("SyncThreadsOr")
	t.mark()
	if t.blk.exec.barrier(t, pred) {
		t.resume(t.fib.await(t))
	}
	return t.blk.bar.lastCount > 0
}

// sitesDiffer reports whether the threads of a barrier round reached it at
// different call sites.
func (b *block) sitesDiffer(by *Thread, ws []int32) bool {
	for _, r := range ws {
		if b.threads[r].waitPC != by.waitPC {
			return true
		}
	}
	return false
}

// barrierDiverged reports a SyncThreads round that some threads of the
// block reached at another call site, or missed because they exited.
func (b *block) barrierDiverged(by *Thread, ws []int32) {
	var ids []int
	var pcs []callSite
	if !by.at.waiting() { // by arrived last, rather than exiting
		ids, pcs = append(ids, by.rank), append(pcs, by.waitPC)
	}
	for _, r := range ws {
		ids, pcs = append(ids, int(r)), append(pcs, b.threads[r].waitPC)
	}
	e := &DivergenceError{Block: b.id, Warp: -1, Barrier: "syncthreads"}
	b.l.d.split(e, "syncthreads", ids, pcs, 0, len(b.threads), func(r int) bool { return b.threads[r].done })
	b.diverged(e)
}
