package race

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// thread is one thread's synchronization state. The fence marks are
// written only by the thread (or, with the central checker, by the checker
// in the thread's order) and read by any thread checking an access the
// thread made, so they are atomic; the rest is the thread's own.
type thread struct {
	l     *launch
	blk   *block
	w     *warp
	gid   int
	rank  int
	lane  int
	gwarp int // global warp id
	// seq numbers the thread's fences of warp scope or wider (releases
	// included), from 1; a record holds its value at the access. Only the
	// thread writes it.
	seq atomic.Uint32
	// last holds, by fenceSlot, the seq of the thread's last fence in that
	// slot or a wider one: the thread fenced adequately since a record iff
	// last[slot] > record.seq (see fencedSince). One number per record,
	// instead of a count per slot, keeps a record at 32 bytes.
	last [nFence]atomic.Uint32
	// rel is last for the thread's release accesses, with the central
	// checker only: the accessing thread marks them as it reports them,
	// while the checker marks the plain fences in last (see central.go).
	rel [nFence]atomic.Uint32
	// The cooperative-groups tile syncs (tiles wider than a warp) the
	// thread completed, and the block ranks [tileLo, tileHi) of the last.
	tileN          atomic.Uint32
	tileLo, tileHi atomic.Int32
	locks          held // this thread's own lock table

	cacheMem *gpu.Memory // the memory last accessed, and its metadata
	xMem     *gpu.Memory // the memory last checked against other launches, and its cells
	xCells   []crossCell
	xLast    *crossSide // the thread's last record in the cross-launch table
	cache    *shadow
	firsts   firstList // the thread's first records (see first.go)
	n        counters  // this thread's share of the detector's counters
}

// place returns th's coordinates for scope comparisons.
func (th *thread) place() scope.Place {
	return scope.Place{Thread: th.gid, Warp: th.gwarp, Block: th.blk.id}
}

// reset zeroes th for a new launch but keeps the arrays of its lock
// table and of publish's scratch, as warp.reset keeps the warp's. Every
// insert into a hash table is a CAS(0→key), a candidate acquire, so
// growing each thread's table afresh in every launch was an eighth of
// lib/hashtable's time under the detector. The arrays are cleared, so a
// pooled block keeps no memory of the last launch alive.
func (th *thread) reset() {
	locks, ids := th.locks.keep()
	*th = thread{}
	th.locks.locks, th.locks.ids = locks, ids
}

// threadOf returns t's state, finding it once per thread and keeping it
// on t afterwards. A state another detector keeps there (two detectors
// observing one launch) is not d's: d looks its own up again.
func (d *Detector) threadOf(t *gpu.Thread) *thread {
	if th, ok := t.ObserverState().(*thread); ok && th.l.d == d {
		return th
	}
	return d.lookupThread(t)
}

//go:noinline
func (d *Detector) lookupThread(t *gpu.Thread) *thread {
	b := d.launchOf(t.Grid()).block[t.Block()].Load()
	th := &b.threads[t.Rank()]
	if _, taken := t.ObserverState().(*thread); !taken {
		t.SetObserverState(th) // else another detector's: leave it, or both look up at every access
	}
	return th
}

// tiledWith reports whether th has completed a tile sync since its count
// was n, and the last one held o: then o passed that sync after th's
// access at count n, which it orders.
func (th *thread) tiledWith(n uint32, o *thread) bool {
	if th.tileN.Load() == n {
		return false
	}
	r := int32(o.rank)
	return th.tileLo.Load() <= r && r < th.tileHi.Load()
}
