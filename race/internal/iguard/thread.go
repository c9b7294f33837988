package iguard

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
)

// thread is one thread's synchronization state, recycled with its
// block's (see block.go). Records name a thread by its global id, and
// find its state through its block while the block runs (see
// launch.threadOf). The fence marks are read by any thread checking an
// access the thread made, so they are atomic, and a recycling resets
// them with atomic stores; the rest (threadOwn) is read only by the
// thread and by threads of its block, which do not run while it is
// recycled.
type thread struct {
	// last holds, by fenceSlot, the seq of the thread's last fence in that
	// slot or a wider one: the thread fenced adequately since a record iff
	// last[slot] > record.seq (see fencedSince). One number per record,
	// instead of a count per slot, keeps a record small.
	last [nFence]atomic.Uint32
	// rel is last for the thread's release accesses, with the central
	// checker only: the accessing thread marks them as it reports them,
	// while the checker marks the plain fences in last (see central.go).
	rel [nFence]atomic.Uint32
	threadPos
	threadOwn
}

// threadPos is where a thread's state sits: set when its block's state
// is made, and l when a launch takes it, so that recycling it within a
// launch rewrites no pointer.
type threadPos struct {
	l    *launch
	blk  *block
	w    *warp
	rank int
	lane int
	wn   int // the lanes of the thread's warp
}

// threadOwn is the part of a thread's state that a recycling zeroes
// with a plain store.
type threadOwn struct {
	gid   int
	gwarp int // global warp id
	// bfirst and wfirst are the global ids of rank 0 of the thread's
	// block and of lane 0 of its warp: a record's thread is in the same
	// block or warp iff its global id falls in the range from there (see
	// sameBlock).
	bfirst, wfirst int
	// seq numbers the thread's fences of warp scope or wider (releases
	// included), from 1; a record holds its value at the access. Only the
	// thread writes it.
	seq atomic.Uint32
	// The cooperative-groups tile syncs (tiles wider than a warp) the
	// thread completed, and the block ranks [tileLo, tileHi) of the last.
	tileN          atomic.Uint32
	tileLo, tileHi atomic.Int32
	locks          held // this thread's own lock table

	// cache holds the metadata of the last two memories the thread
	// accessed, and next the one to replace: a kernel reading one buffer
	// and writing another alternates between them.
	cache  [2]*shadow
	next   int
	xMem   *gpu.Memory // the memory last checked against other launches, and its cells
	xCells []crossCell
	xLast  *crossSide // the thread's last record in the cross-launch table
	n      counters   // this thread's share of the detector's counters
}

// sameBlock reports whether the thread with global id gid is in th's
// block.
func (th *thread) sameBlock(gid int) bool { return uint(gid-th.bfirst) < uint(th.l.g.BlockSize) }

// sameWarp reports whether the thread with global id gid is in th's
// warp.
func (th *thread) sameWarp(gid int) bool { return uint(gid-th.wfirst) < uint(th.wn) }

// reset zeroes th for a new block but keeps the arrays of its lock
// table and of publish's scratch, as warp.reset keeps the warp's. Every
// insert into a hash table is a CAS(0→key), a candidate acquire, so a
// table grown afresh each launch would allocate on the hot path of
// lock-heavy kernels. The arrays are cleared, so a
// pooled block keeps no memory of the last launch alive.
func (th *thread) reset() {
	kept := th.locks.keep()
	for i := range nFence { // most threads never fence: a load is cheaper
		if th.last[i].Load() != 0 {
			th.last[i].Store(0)
		}
		if th.rel[i].Load() != 0 {
			th.rel[i].Store(0)
		}
	}
	th.threadOwn = threadOwn{}
	th.locks.reuse(kept)
}

// threadOf returns t's state, finding it once per thread and keeping it
// on t afterwards. A state another detector keeps there (two detectors
// observing one launch) is not d's: d looks its own up again.
func (d *Engine) threadOf(t *gpu.Thread) *thread {
	if th, ok := t.ObserverState().(*thread); ok && th.l.d == d {
		return th
	}
	return d.lookupThread(t)
}

//go:noinline
func (d *Engine) lookupThread(t *gpu.Thread) *thread {
	b := d.launchOf(t.Grid()).res.get(t.BlockRank())
	th := &b.threads[t.ThreadRank()]
	if _, taken := t.ObserverState().(*thread); !taken {
		t.SetObserverState(th) // else another detector's: leave it, or both look up at every access
	}
	return th
}

// tiledWith reports whether th has completed a tile sync since its count
// was n, and the last one held o, a thread of th's block: then o passed
// that sync after th's access at count n, which it orders.
func (th *thread) tiledWith(n uint32, o *thread) bool {
	if th.tileN.Load() == n {
		return false
	}
	r := int32(o.gid - th.bfirst)
	return th.tileLo.Load() <= r && r < th.tileHi.Load()
}
