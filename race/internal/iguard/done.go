package iguard

import (
	"sync"
	"sync/atomic"
)

// donePageBits sets the threads per page of the done table.
const donePageBits = 10

// done holds what later checks need of the threads of ended blocks: the
// seq of each one's last device fence (or device release), the only mark
// a check against another block reads (see need). A thread that never
// made one has no place in it, so a kernel without device fences keeps
// nothing of its ended blocks; otherwise the table holds one word per
// fencing thread, in pages allocated as their blocks end.
type done struct {
	pages sync.Map // thread id >> donePageBits → *donePage
}

type donePage [1 << donePageBits]atomic.Uint32

// put records n as ended thread gid's last device fence. It
// synchronizes before every get of gid that reads it.
func (t *done) put(gid int, n uint32) {
	v, ok := t.pages.Load(gid >> donePageBits)
	if !ok {
		v, _ = t.pages.LoadOrStore(gid>>donePageBits, new(donePage))
	}
	v.(*donePage)[gid&(1<<donePageBits-1)].Store(n)
}

// get returns ended thread gid's last device fence, 0 for none.
func (t *done) get(gid int) uint32 {
	if v, ok := t.pages.Load(gid >> donePageBits); ok {
		return v.(*donePage)[gid&(1<<donePageBits-1)].Load()
	}
	return 0
}

// fold records th's last device fence as its block ends.
func (t *done) fold(th *thread) {
	if n := max(th.last[fenceDevice].Load(), th.rel[fenceDevice].Load()); n > 0 {
		t.put(th.gid, n)
	}
}

// fencedSince reports whether md's thread has executed a fence counted in
// slot from or a wider one since md's access: whether the last such fence
// (or, with the central checker, release) came after it in the thread's
// numbering. A thread's numbers never wrap: see thread.number. A thread
// of an ended block is found in the done table, which knows device
// fences only; a check asks an ended thread for nothing narrower, since
// narrower fences order only threads of its block, which has ended.
//
// A block's end folds its threads' marks into done before it clears the
// block's rid, and a block's start resets the marks of a recycled state
// before it sets rid anew: so marks read between two loads of rid that
// both find the block's id are that block's threads'.
func (l *launch) fencedSince(md *record, from int) bool {
	gid := md.gid()
	bid := gid / l.g.BlockSize
	if b := l.res.get(bid); b != nil {
		th := &b.threads[gid-bid*l.g.BlockSize]
		n := max(th.last[from].Load(), th.rel[from].Load())
		if b.rid.Load() == int64(bid) {
			return n > md.seq
		}
	}
	return l.done.get(gid) > md.seq
}
