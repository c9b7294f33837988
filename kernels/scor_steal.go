package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// stealQueues is the work-stealing loop ScoR's graph kernels share. The
// host splits n items into one queue per block ([head, tail) ranges); a
// block drains its queue a chunk of blockDim items at a time, thread 0
// claiming each chunk with an atomic add on the queue's head, and when its
// queue runs dry thread 0 picks a victim with work left and claims from
// its queue. The chunk start and the queue being drained live in global
// memory (base and owner, one word per block) and pass from thread 0 to
// the block through __syncthreads.
//
// Heads are shared by every block, so every claim uses device scope; the
// barriers before and after a claim keep thread 0's store of base away
// from the block's reads of the previous and the new value.
type stealQueues struct {
	head, tail  gpu.Buffer[int32]
	base, owner gpu.Buffer[int32]
	threads     int

	// The switches for injected races; the zero value is race-free.
	claimScope    scope.Scope // scope of the in-loop claim: Device unless injected
	stealScope    scope.Scope // scope of a steal's claim: Device unless injected
	noWorkSync    bool        // no barrier between the work and the next claim
	noClaimSync   bool        // no barrier between a claim and the block's read of it
	blocks, items int
}

func newStealQueues(d *gpu.Device, blocks, threads int) stealQueues {
	return stealQueues{
		head: gpu.Alloc[int32](d, "head", blocks), tail: gpu.Alloc[int32](d, "tail", blocks),
		base: gpu.Alloc[int32](d, "base", blocks), owner: gpu.Alloc[int32](d, "owner", blocks),
		threads: threads, blocks: blocks, claimScope: scope.Device, stealScope: scope.Device,
	}
}

// divide splits n items evenly over the queues, from the host between
// launches, as ScoR's divideWork does.
func (q *stealQueues) divide(n int) {
	head, tail := make([]int32, q.blocks), make([]int32, q.blocks)
	per := n / q.blocks
	for b := range q.blocks {
		head[b], tail[b] = int32(b*per), int32((b+1)*per)
		if n < q.blocks { // fewer items than queues: one each
			head[b], tail[b] = int32(min(b, n)), int32(min(b+1, n))
		}
	}
	tail[q.blocks-1] = int32(n)
	q.head.CopyIn(head)
	q.tail.CopyIn(tail)
	q.items = n
}

// run calls work for every item of the launch, each exactly once. Every
// branch the block takes together is decided by a barrier vote, so that
// even a racy injection that lets threads see different chunk starts
// cannot split the block across barriers.
func (q stealQueues) run(t *gpu.Thread, work func(t *gpu.Thread, item int)) {
	b := t.BlockRank()
	if t.ThreadRank() == 0 {
		q.base.Store(t, b, q.head.AtomicAdd(t, b, int32(q.threads), scope.Device))
		q.owner.AtomicExch(t, b, int32(b), scope.Block)
	}
	t.SyncThreads()
	queue := b
	for {
		if !q.more(t, queue) {
			if queue = q.steal(t); !q.more(t, queue) {
				return
			}
		}
		// Each thread re-reads the chunk start for its item, as ScoR's
		// kernels do: the barrier before the next claim keeps thread 0
		// from overwriting it under a slower thread.
		if i := int(q.base.Load(t, b)) + t.ThreadRank(); i < int(q.tail.Load(t, queue)) {
			work(t, i)
		}
		q.claim(t, queue)
	}
}

// more reports, to the whole block alike, whether the claimed chunk in
// base starts before queue's tail.
func (q stealQueues) more(t *gpu.Thread, queue int) bool {
	return t.SyncThreadsOr(q.base.Load(t, t.BlockRank()) < q.tail.Load(t, queue))
}

// claim makes thread 0 take the next chunk of queue into base.
func (q stealQueues) claim(t *gpu.Thread, queue int) {
	if !q.noWorkSync {
		t.SyncThreads()
	}
	if t.ThreadRank() == 0 {
		q.base.Store(t, t.BlockRank(), q.head.AtomicAdd(t, queue, int32(q.threads), q.claimScope))
	}
	if !q.noClaimSync {
		t.SyncThreads()
	}
}

// steal makes thread 0 claim a chunk from the first other queue that has
// more than a chunk left (or the last one it looks at) and returns that
// queue to the whole block. The barrier vote before it has ordered every
// read of base before thread 0 rewrites it.
func (q stealQueues) steal(t *gpu.Thread) (queue int) {
	b := t.BlockRank()
	if t.ThreadRank() == 0 {
		victim := b
		for o := 1; o < q.blocks; o++ {
			victim = (b + o) % q.blocks
			if q.head.AtomicAdd(t, victim, 0, scope.Device)+int32(q.threads) < q.tail.Load(t, victim) {
				break
			}
		}
		q.base.Store(t, b, q.head.AtomicAdd(t, victim, int32(q.threads), q.stealScope))
		q.owner.AtomicExch(t, b, int32(victim), scope.Block)
	}
	t.SyncThreads()
	return int(q.owner.AtomicAdd(t, b, 0, scope.Block))
}
