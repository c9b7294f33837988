package race

import (
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// flags are an entry's state bits (iGUARD's WRITE-word flags, plus
// fWriter).
type flags uint8

const (
	fValid    flags = 1 << iota // the entry has been accessed this launch
	fModified                   // the last writer's write still needs checking
	// fWriter: w holds a real writer. iGUARD zeroes the words on a first
	// load and then reads a phantom writer, thread 0, whose block can set
	// the sharing bits on data nobody wrote.
	fWriter
	// fBlkShared and fDevShared: readers the entry no longer remembers may
	// exist in the last accessor's block, or in other blocks. Only one
	// accessor is kept, so these make later writes check conservatively.
	fBlkShared
	fDevShared
	fShared = fBlkShared | fDevShared
)

// record is one side of a potential race: who accessed, and the state of
// that thread's synchronization at the time; 32 bytes. Its site, kept
// only with history, lives in the entry's extra.
type record struct {
	th     *thread
	seq    uint32 // th's fence seq at the access (see thread.last)
	bar    uint32 // th's block's barrier epoch
	wep    uint32 // th's lane epoch in its warp
	grid   uint32 // the launch's grid.Sync epoch
	tile   uint32 // th's tile syncs completed
	op     gpu.Op
	order  gpu.Order
	scope  scope.Scope
	strong bool
}

// access is the access being checked.
type access struct {
	rec   record
	site  gpu.Site // where, if known
	store bool     // the op may write
	locks *lockSet // locks the thread holds
}

// A finding is a race check's verdict: the kind of race (0 for none), the
// side the access raced with, and the entry state that explains it.
type finding struct {
	kind   Kind
	prev   record
	site   gpu.Site   // prev's site, with history
	stack  []gpu.Site // prev's call stack, with history
	shared flags      // the sharing bits at the check
	locks  *lockSet   // the entry's lockset at the check
}

// check runs the race checks for c, made at the site of slot at (nil
// without history), against the entry, whose extra is x, and updates it. It returns the kind of race found, 0 for none, and then
// fills f. Preconditions: e locked.
func (e *entry) check(c *access, at *siteSlot, x *extra, f *finding) Kind {
	if e.flags&fValid == 0 {
		e.flags, e.locks = fValid, c.locks
		e.record(c, at, x)
		return 0
	}
	md := &e.r // stores and atomics are checked against the last accessor
	if !c.store {
		if e.flags&fWriter == 0 {
			e.record(c, at, x) // nothing written yet: a read conflicts with nothing
			return 0
		}
		md = &e.w // loads only against the last writer
	}
	shared, locks := e.flags&fShared, e.locks
	k := e.decide(md, c)
	if k == 0 && c.store && e.o.th != nil {
		if k = e.otherRace(c); k != 0 {
			md = &e.o
		}
	}
	if k != 0 {
		p := e.siteOf(md, x)
		*f = finding{kind: k, prev: *md, site: p.siteOf(), stack: p.stackOf(), shared: shared, locks: locks}
	}
	e.record(c, at, x)
	return k
}

// siteOf returns the slot of the site of e's record md, kept in x with
// history; nil if unknown.
func (e *entry) siteOf(md *record, x *extra) *siteSlot {
	switch {
	case x == nil:
		return nil
	case md == &e.w:
		return x.w
	case md == &e.o:
		return x.o
	}
	return x.r
}

// otherRace checks a store against the reader the last accessor replaced.
// iGUARD keeps one accessor and, within a block, loses every reader but the
// last: in a warp-synchronous reduction, lane 0's read of s[16] is
// forgotten once lane 8 reads it, and lane 16's later store goes unchecked.
// Keeping the previous reader of another thread as well catches that at
// the cost of one record per granule; the sharing bits still stand in for
// readers older than that.
func (e *entry) otherRace(c *access) Kind {
	o := &e.o
	if o.th == c.rec.th || e.shortcut(o, c) != noShortcut {
		return 0
	}
	return e.fenceRace(o, c)
}

// record makes c, made at the site of slot at, the last accessor, and the
// last writer if it writes. A
// store is checked against every remembered reader, so it clears the
// other reader; a load keeps the accessor it replaces, if another thread.
func (e *entry) record(c *access, at *siteSlot, x *extra) {
	switch {
	case c.store:
		e.w, e.o = c.rec, record{}
		e.flags |= fModified | fWriter
		if x != nil {
			x.w, x.o = at, nil
		}
	case e.r.th != c.rec.th:
		e.o = e.r
		if x != nil {
			x.o = x.r
		}
	}
	e.r = c.rec
	if x != nil {
		x.r = at
	}
}

// decide applies the race-free shortcuts and then the race checks, in
// iGUARD's order (SOSP'21, Table 2): the first that applies decides.
func (e *entry) decide(md *record, c *access) Kind {
	if e.ordered(md, c) {
		return 0
	}
	if c.store || e.flags&fModified != 0 {
		if k := e.race(md, c); k != 0 {
			// The current access becomes the owner, as in iGUARD and ScoRD,
			// so one missing fence is reported once, not at every access.
			e.flags &^= fModified | fShared
			e.locks = c.locks
			return k
		}
	}
	locked := !(e.locks.empty() && c.locks.empty()) // S4: properly locked
	e.locks = e.locks.intersect(c.locks)
	switch {
	case c.store:
		e.flags &^= fShared
	case !locked:
		e.share(c)
	}
	return 0
}

// The race-free shortcuts that need no fence history (iGUARD's S1-S3).
const (
	noShortcut   = iota
	programOrder // the same thread, or lanes a collective ordered
	gridSync     // a grid.Sync between the accesses
	barrier      // a __syncthreads between the accesses
	tileSync     // a sync of a tile wider than a warp, holding both threads
	bothAtomic   // two atomics whose scopes cover both threads
)

// shortcut returns the race-free shortcut that orders md before c, if any.
func (e *entry) shortcut(md *record, c *access) int {
	cur := &c.rec
	switch {
	case e.programOrder(md, c):
		return programOrder
	case md.grid != cur.grid:
		// grid.Sync orders every thread of the grid, forgotten readers
		// too (iGUARD has no native grid barrier to see).
		return gridSync
	case md.th.blk == cur.th.blk && md.bar != cur.bar && e.flags&fDevShared == 0:
		return barrier
	case md.th.blk == cur.th.blk && e.flags&fDevShared == 0 && md.th.tiledWith(md.tile, cur.th):
		return tileSync
	case md.strong && cur.strong && covers(md.scope, md, cur) && covers(cur.scope, md, cur):
		// Morally strong: both atomic, each scope covering both threads.
		// iGUARD checks only the earlier access's scope (one-sided), so a
		// block atomic after a device atomic from another block passed.
		return bothAtomic
	}
	return noShortcut
}

// ordered applies the shortcuts, updating the lockset and sharing bits
// as iGUARD does on each path.
func (e *entry) ordered(md *record, c *access) bool {
	switch e.shortcut(md, c) {
	case programOrder:
		if md.th.blk == c.rec.th.blk && md.bar == c.rec.bar {
			e.locks = e.locks.intersect(c.locks)
		} else {
			e.locks = c.locks
		}
	case gridSync:
		e.flags &^= fShared
		e.locks = c.locks
	case barrier:
		e.flags &^= fBlkShared
		e.locks = c.locks
	case bothAtomic, tileSync:
		e.locks = e.locks.intersect(c.locks)
	default:
		return false
	}
	return true
}

// programOrder is iGUARD's S1 under independent thread scheduling: the
// same thread, or a lane of the same warp that a chain of collectives has
// ordered after md's access. Lanes are never assumed converged: iGUARD
// trusts the active mask at the instruction, which says nothing about
// memory order once lanes may interleave. A store also needs the sharing
// bits clear, since forgotten readers may not be in program order.
func (e *entry) programOrder(md *record, c *access) bool {
	cur := &c.rec
	if md.th.w != cur.th.w || c.store && e.flags&fShared != 0 {
		return false
	}
	return md.th == cur.th || cur.th.w.after(cur.th.lane, md.th.lane, md.wep)
}

// covers reports whether scope s orders the threads of records a and b.
func covers(s scope.Scope, a, b *record) bool {
	return s.Covers(a.th.place(), b.th.place())
}

// fencedSince reports whether md's thread has executed a fence counted in
// slot from or a wider one since md's access: whether the last such fence
// (or, with the central checker, release) came after it in the thread's
// numbering.
// A thread's numbers never wrap: see thread.number.
func fencedSince(md *record, from int) bool {
	return md.th.last[from].Load() > md.seq || md.th.rel[from].Load() > md.seq
}

// need returns the narrowest fence that, executed by md's thread after its
// access, orders it before c: any fence within a warp, a block fence within
// a block, a device fence across blocks. With fDevShared set, a block needs
// a device fence too: some forgotten reader is in another block. iGUARD
// skips the block check altogether then (a false negative); ScoRD requires
// the device fence, and so do we.
func (e *entry) need(md *record, c *access) int {
	switch {
	case md.th.blk != c.rec.th.blk || e.flags&fDevShared != 0:
		return fenceDevice
	case md.th.w == c.rec.th.w && e.flags&fShared == 0:
		return fenceWarp
	}
	return fenceBlock
}

// race applies the race checks R1-R5 to a pair not otherwise ordered.
func (e *entry) race(md *record, c *access) Kind {
	if k := e.fenceRace(md, c); k != 0 {
		return k
	}
	return e.lockRace(c)
}

// fenceRace applies R1-R4: the pair is a race unless md's thread fenced
// adequately since md's access.
func (e *entry) fenceRace(md *record, c *access) Kind {
	cur := &c.rec
	if fencedSince(md, e.need(md, c)) {
		return 0
	}
	// R1, made symmetric: either atomic's scope may be the narrow one. As
	// in iGUARD it is checked before the fences, but only for pairs no
	// fence ordered (see need), so a block atomic ordered after a device
	// atomic by a fence chain is no race (ScoR's hrd-indirect).
	if md.strong && !covers(md.scope, md, cur) || md.strong && cur.strong && !covers(cur.scope, md, cur) {
		return ScopedAtomic
	}
	switch {
	case md.th.w == cur.th.w && e.flags&fShared == 0:
		return MissingSyncwarp // R2
	case md.th.blk == cur.th.blk:
		return MissingBlockFence // R3
	}
	return MissingDeviceFence // R4
}

// lockRace is R5: the accesses are fence-ordered, but some lock is
// involved and no lock protects both.
func (e *entry) lockRace(c *access) Kind {
	if (!e.locks.empty() || !c.locks.empty()) && e.locks.disjoint(c.locks) {
		return ImproperLocking
	}
	return 0
}

// share updates the sharing bits when load c replaces the last accessor
// (iGUARD S5). iGUARD compares the last accessor's recorded fence counter
// with the last writer's current one; we compare it with its own thread's.
func (e *entry) share(c *access) {
	r := &e.r
	switch {
	case r.th == c.rec.th:
	case fencedSince(r, fenceDevice):
		e.flags &^= fShared
	case r.th.blk == c.rec.th.blk && fencedSince(r, fenceBlock):
		e.flags &^= fBlkShared
	case e.flags&fWriter != 0 && e.w.th.blk != r.th.blk:
		if r.th.blk != c.rec.th.blk {
			e.flags |= fDevShared
		}
		e.flags &^= fBlkShared
		if r.th.blk == c.rec.th.blk && e.flags&fDevShared == 0 {
			e.flags |= fBlkShared
		}
	}
}

// entry is the metadata of one granule of memory: two cache lines. The
// first holds everything a repeat, a coalesced lane or a first touch
// reads (with history, they also read the call path in the extra), and
// the last accessor, which every check writes; the second the
// last writer and the other reader. What only history or LockMutex needs
// lives apart, in an extra: an entry of three lines cost first touches a
// third more, and contended checks a line more to move between cores.
type entry struct {
	// word is the stamp of the access that last updated the entry, or,
	// under LockSpin, locked while a check holds the entry. An access
	// whose stamp matches is a repeat of that update by the same thread
	// with no synchronization since, whose check would change nothing and
	// find nothing new; it skips the lock.
	word  stampWord
	flags flags
	// ckey is the coalescing key of that access, or 0 when a lane of its
	// warp may not skip its check (see coalesce.go).
	ckey  atomic.Uint64
	locks *lockSet // locks every recent access held: the lockset
	r     record   // the last accessor
	w     record   // the last writer, if flags has fWriter
	o     record   // the reader of another thread r replaced (see otherRace)
}

// extra is the part of a granule's metadata only some detectors use, in
// a parallel array of the page: the call path and sites of the records
// with history (or the central checker), the mutex with LockMutex.
type extra struct {
	mu sync.Mutex // LockMutex's lock
	// path is the call path of the access that last updated the entry,
	// with history: a repeat from another line must be recorded, for its
	// site.
	path    atomic.Pointer[siteSlot]
	r, w, o *siteSlot // the sites of the entry's records, under its lock
}

// pathOf returns the call path x holds, nil without an extra.
func (x *extra) pathOf() *siteSlot {
	if x == nil {
		return nil
	}
	return x.path.Load()
}
