package iguard

import (
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
)

// launch is the detector's state for one running launch: the grid barrier
// epoch, the running blocks, what later checks need of the ended ones,
// and the memory metadata. A new launch starts from nothing, since a
// kernel boundary orders every access.
//
// Blocks are found without a lock: with one mutex, two blocks starting at
// once would take turns, and a turn that parks a goroutine costs more
// than a small kernel's whole launch.
type launch struct {
	d    *Engine
	g    *gpu.Grid
	grid atomic.Uint32 // completed grid.Sync rounds
	res  residents     // the running blocks
	done done          // the device fences of ended blocks' threads
	// free holds the states of ended blocks, for the next to start, in
	// a list through block.next. They go back to the detector only when
	// the launch ends: a check that found a state in res tells whose it
	// is by its rid, a block id, unique only within the launch.
	freeMu  sync.Mutex
	free    *block
	mem     *shadows
	sets    lockTable // the locksets the launch's entries name
	lk      locker    // how checks lock entries
	central *central  // the checker goroutine, with Config.Central
	// seq numbers the launch among its detector's, and before lists the
	// launches running when it started (see crosslaunch.go). While cross
	// is set, its global accesses are checked against theirs in xt.
	// late is set, under the cross-launch mutex, when cross was set
	// while the launch ran: its accesses before then are only in mem,
	// and are folded into xt when it ends (see crossfold.go).
	seq    uint64
	before []uint64
	cross  atomic.Bool
	xt     *crossTable
	late   bool
}

func newLaunch(d *Engine, g *gpu.Grid) *launch {
	lk := newLocker(d.opt, g.Warps*min(g.Blocks, 100), d.stripes)
	if d.opt.Central {
		lk.kind = lockNone // one goroutine checks: nothing to exclude
	}
	l := &launch{d: d, g: g, mem: newShadows(d), lk: lk}
	l.res.init(g.Blocks)
	return l
}

// start sets up block id's state when the block starts to run.
func (l *launch) start(id int) {
	g := l.g
	b := l.take()
	b.id = id
	base := id * g.BlockSize
	for r := range b.threads {
		th := &b.threads[r]
		w := th.w.first / g.WarpSize
		th.gid, th.gwarp, th.bfirst, th.wfirst = base+r, id*g.Warps+w, base, base+th.w.first
	}
	b.rid.Store(int64(id))
	l.res.put(b)
}

// take returns zeroed state for a block: an ended block's, or a new one.
func (l *launch) take() *block {
	l.freeMu.Lock()
	if b := l.free; b != nil {
		l.free, b.next = b.next, nil
		l.freeMu.Unlock()
		b.reset()
		return b
	}
	l.freeMu.Unlock()
	b := l.d.newBlock(l.g)
	for i := range b.threads {
		b.threads[i].l = l
	}
	return b
}

// end folds the threads of b, a running block's state, into the done
// table, frees its shared memories' metadata, and keeps b for the next
// block.
func (l *launch) end(b *block) {
	l.mem.freeBlock(b.id)
	for i := range b.threads {
		l.done.fold(&b.threads[i])
	}
	l.res.del(b)
	b.rid.Store(-1)
	l.freeMu.Lock()
	l.free, b.next = b, l.free
	l.freeMu.Unlock()
}

// recycle gives the launch's block states back to the detector once
// nothing refers to their threads: after the launch's metadata is freed.
func (l *launch) recycle() {
	for b := l.free; b != nil; {
		next := b.next
		b.next = nil
		l.d.blocks.Put(b)
		b = next
	}
	l.free = nil
}

// threadOf returns the state of thread gid, whose block runs.
func (l *launch) threadOf(gid int) *thread {
	bid := gid / l.g.BlockSize
	return &l.res.get(bid).threads[gid-bid*l.g.BlockSize]
}
