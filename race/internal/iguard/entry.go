package iguard

import (
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
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
	// fWide: a record did not fit a packed one, and the entry's records
	// are kept whole in its page's wide array (see packed).
	fWide
	fShared = fBlkShared | fDevShared
)

// record is one side of a potential race: who accessed, and the state of
// that thread's synchronization at the time; 32 bytes, which an entry
// keeps in 14 (see packed). Its site, kept
// only with history, lives in the entry's extra. It names its thread by
// global id, not by its state, which is recycled with its block (see
// launch.threadOf).
type record struct {
	tid    int    // the thread's global id plus one; 0 in no record
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
	th    *thread  // the accessing thread, nil for an unpacked first
	site  gpu.Site // where, if known
	store bool     // the op may write
	locks *lockSet // locks the thread holds
}

// A finding is a race check's verdict: the kind of race (0 for none), the
// side the access raced with, and the entry state that explains it.
type finding struct {
	kind   kind.Kind
	prev   record
	site   gpu.Site   // prev's site, with history
	stack  []gpu.Site // prev's call stack, with history
	shared flags      // the sharing bits at the check
	locks  *lockSet   // the entry's lockset at the check
}

// check runs the race checks for c, made at the site of slot at (nil
// without history), against e, the metadata of an entry whose extra is
// x, and updates e. It returns the kind of race found, 0 for none, and
// then fills f. Preconditions: e unpacked from its entry, which is
// locked until e is stored back (see shadow.load).
func (e *meta) check(c *access, at *shared.SiteSlot, x *extra, f *finding) kind.Kind {
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
	if k == 0 && c.store && e.o.tid != 0 {
		if k = e.otherRace(c); k != 0 {
			md = &e.o
		}
	}
	if k != 0 {
		p := e.siteOf(md, x)
		*f = finding{kind: k, prev: *md, site: p.Site(), stack: p.Stack(), shared: shared, locks: locks}
	}
	e.record(c, at, x)
	return k
}

// siteOf returns the slot of the site of e's record md, kept in x with
// history; nil if unknown.
func (e *meta) siteOf(md *record, x *extra) *shared.SiteSlot {
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
func (e *meta) otherRace(c *access) kind.Kind {
	o := &e.o
	if o.gid() == c.rec.gid() || e.shortcut(o, c) != noShortcut {
		return 0
	}
	return e.fenceRace(o, c)
}

// record makes c, made at the site of slot at, the last accessor, and the
// last writer if it writes. A
// store is checked against every remembered reader, so it clears the
// other reader; a load keeps the accessor it replaces, if another thread.
func (e *meta) record(c *access, at *shared.SiteSlot, x *extra) {
	switch {
	case c.store:
		e.w, e.o = c.rec, record{}
		e.moved = movedStore
		e.flags |= fModified | fWriter
		if x != nil {
			x.w, x.o = at, nil
		}
	case e.r.gid() != c.rec.gid():
		e.o = e.r
		e.moved = movedShift
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
func (e *meta) decide(md *record, c *access) kind.Kind {
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
func (e *meta) shortcut(md *record, c *access) int {
	cur := &c.rec
	switch {
	case e.programOrder(md, c):
		return programOrder
	case md.grid != cur.grid:
		// grid.Sync orders every thread of the grid, forgotten readers
		// too (iGUARD has no native grid barrier to see).
		return gridSync
	case c.th.sameBlock(md.gid()) && md.bar != cur.bar && e.flags&fDevShared == 0:
		return barrier
	case c.th.sameBlock(md.gid()) && e.flags&fDevShared == 0 && c.th.l.threadOf(md.gid()).tiledWith(md.tile, c.th):
		return tileSync
	case md.strong && cur.strong && covers(md.scope, md, c) && covers(cur.scope, md, c):
		// Morally strong: both atomic, each scope covering both threads.
		// iGUARD checks only the earlier access's scope (one-sided), so a
		// block atomic after a device atomic from another block passed.
		return bothAtomic
	}
	return noShortcut
}

// ordered applies the shortcuts, updating the lockset and sharing bits
// as iGUARD does on each path.
func (e *meta) ordered(md *record, c *access) bool {
	switch e.shortcut(md, c) {
	case programOrder:
		if md.bar == c.rec.bar { // program order is within a warp
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
func (e *meta) programOrder(md *record, c *access) bool {
	cur := &c.rec
	if !c.th.sameWarp(md.gid()) || c.store && e.flags&fShared != 0 {
		return false
	}
	return md.gid() == cur.gid() || c.th.w.after(c.th.lane, md.gid()-c.th.wfirst, md.wep)
}

// covers reports whether scope s orders the threads of record a and
// access c.
func covers(s scope.Scope, a *record, c *access) bool {
	g := c.th.l.g
	return s.Covers(a.place(g), c.rec.place(g))
}

// gid returns the global id of r's thread.
func (r *record) gid() int { return r.tid - 1 }

// place returns the coordinates of r's thread, of a launch of g, for
// scope comparisons.
func (r *record) place(g *gpu.Grid) scope.Place {
	b := r.gid() / g.BlockSize
	return scope.Place{Thread: r.gid(), Warp: b*g.Warps + (r.gid()-b*g.BlockSize)/g.WarpSize, Block: b}
}

// need returns the narrowest fence that, executed by md's thread after its
// access, orders it before c: any fence within a warp, a block fence within
// a block, a device fence across blocks. With fDevShared set, a block needs
// a device fence too: some forgotten reader is in another block. iGUARD
// skips the block check altogether then (a false negative); ScoRD requires
// the device fence, and so do we.
func (e *meta) need(md *record, c *access) int {
	switch {
	case !c.th.sameBlock(md.gid()) || e.flags&fDevShared != 0:
		return fenceDevice
	case c.th.sameWarp(md.gid()) && e.flags&fShared == 0:
		return fenceWarp
	}
	return fenceBlock
}

// race applies the race checks R1-R5 to a pair not otherwise ordered.
func (e *meta) race(md *record, c *access) kind.Kind {
	if k := e.fenceRace(md, c); k != 0 {
		return k
	}
	return e.lockRace(c)
}

// fenceRace applies R1-R4: the pair is a race unless md's thread fenced
// adequately since md's access.
func (e *meta) fenceRace(md *record, c *access) kind.Kind {
	cur := &c.rec
	if c.th.l.fencedSince(md, e.need(md, c)) {
		return 0
	}
	// R1, made symmetric: either atomic's scope may be the narrow one. As
	// in iGUARD it is checked before the fences, but only for pairs no
	// fence ordered (see need), so a block atomic ordered after a device
	// atomic by a fence chain is no race (ScoR's hrd-indirect).
	if md.strong && !covers(md.scope, md, c) || md.strong && cur.strong && !covers(cur.scope, md, c) {
		return kind.ScopedAtomic
	}
	switch {
	case c.th.sameWarp(md.gid()) && e.flags&fShared == 0:
		return kind.MissingSyncwarp // R2
	case c.th.sameBlock(md.gid()):
		return kind.MissingBlockFence // R3
	}
	return kind.MissingDeviceFence // R4
}

// lockRace is R5: the accesses are fence-ordered, but some lock is
// involved and no lock protects both.
func (e *meta) lockRace(c *access) kind.Kind {
	if (!e.locks.empty() || !c.locks.empty()) && e.locks.disjoint(c.locks) {
		return kind.ImproperLocking
	}
	return 0
}

// share updates the sharing bits when load c replaces the last accessor
// (iGUARD S5). iGUARD compares the last accessor's recorded fence counter
// with the last writer's current one; we compare it with its own thread's.
func (e *meta) share(c *access) {
	r, cur, l := &e.r, c.th, c.th.l
	switch {
	case r.gid() == c.rec.gid():
	case l.fencedSince(r, fenceDevice):
		e.flags &^= fShared
	case cur.sameBlock(r.gid()) && l.fencedSince(r, fenceBlock):
		e.flags &^= fBlkShared
	case e.flags&fWriter != 0 && e.w.gid()/l.g.BlockSize != r.gid()/l.g.BlockSize:
		if !cur.sameBlock(r.gid()) {
			e.flags |= fDevShared
		}
		e.flags &^= fBlkShared
		if cur.sameBlock(r.gid()) && e.flags&fDevShared == 0 {
			e.flags |= fBlkShared
		}
	}
}

// entry is the metadata of one granule of memory, in one cache line:
// everything a repeat, a coalesced lane, a first touch or a check reads
// (with history, they also read the call path in the extra). Its records
// are packed (see packed) and its lockset is a handle into the launch's
// lockTable; a check unpacks them into a meta, under the entry's lock,
// and packs them back. What only history or LockMutex needs lives apart,
// in an extra.
type entry struct {
	// word is the stamp of the access that last updated the entry, or,
	// under LockSpin, locked while a check holds the entry. An access
	// whose stamp matches is a repeat of that update by the same thread
	// with no synchronization since, whose check would change nothing and
	// find nothing new; it skips the lock.
	word stampWord
	// ckey is the coalescing key of that access, or 0 when a lane of its
	// warp may not skip its check (see coalesce.go).
	ckey    atomic.Uint64
	r, w, o packed     // meta's records
	flags   flags      // meta's flags
	locks   lockHandle // meta's lockset, in the launch's table
}

// meta is an entry unpacked, for a check: its state bits, its lockset
// and its records.
type meta struct {
	flags flags
	locks *lockSet // locks every recent access held: the lockset
	r     record   // the last accessor
	w     record   // the last writer, if flags has fWriter
	o     record   // the reader of another thread r replaced (see otherRace)
	moved uint8    // how record moved the records besides r, if it did
}

// The values of meta.moved.
const (
	movedStore = 1 + iota // w became r, and o none
	movedShift            // o became the r before
)

// load unpacks the entry e of granule g into m, which is zero, for a
// check of an access that is a store if store; t is the launch's lockset
// table. Records that hold no access stay zero, and so does the other
// reader for a load, which only a store reads (see otherRace).
func (s *shadow) load(g uint64, e *entry, m *meta, t *lockTable, store bool) {
	if e.flags&fValid == 0 {
		return // a fresh entry
	}
	m.flags, m.locks = e.flags, t.lookup(e.locks)
	if e.flags&fWide != 0 {
		s.wide(g).load(m, store)
		return
	}
	e.r.unpack(&m.r)
	if !e.w.zero() {
		e.w.unpack(&m.w)
	}
	if store && !e.o.zero() {
		e.o.unpack(&m.o)
	}
}

// save stores m into the entry e of granule g: packed, or whole in the
// page's wide array once a record does not fit (see packed).
func (s *shadow) save(g uint64, e *entry, m *meta, t *lockTable) {
	e.flags, e.locks = m.flags|e.flags&fWide, t.intern(m.locks)
	if e.flags&fWide == 0 && e.savePacked(m) {
		return
	}
	w := s.wide(g)
	if e.flags&fWide == 0 {
		w.widen(e)
		e.flags |= fWide
		s.widened.Add(1)
	}
	w.save(m)
}

// savePacked packs m's records into e, unless its last accessor does not
// fit a packed record: then it reports false and leaves them. A check
// replaces the last accessor and moves the other records only as
// meta.record says in m.moved: a store's record is also the last writer,
// packed twice rather than copied, since reading back the narrow stores
// that just packed it stalls the copy; and the other reader, if it moved,
// is the last accessor's packed record. The other records were packed
// before, so they fit.
func (e *entry) savePacked(m *meta) bool {
	if !m.r.fits() {
		return false
	}
	switch m.moved {
	case movedStore:
		e.o = packed{}
		e.w.put(&m.r)
	case movedShift:
		e.o = e.r
	}
	e.r.put(&m.r)
	return true
}

// wideRecords are an entry's records kept whole, for an entry with
// fWide set.
type wideRecords struct{ r, w, o record }

// widen copies e's packed records into w.
func (w *wideRecords) widen(e *entry) {
	*w = wideRecords{}
	for _, c := range [...]struct {
		p  *packed
		to *record
	}{{&e.r, &w.r}, {&e.w, &w.w}, {&e.o, &w.o}} {
		if !c.p.zero() {
			c.p.unpack(c.to)
		}
	}
}

// load sets m's records to w's, leaving the other reader zero unless
// store, as shadow.load does.
func (w *wideRecords) load(m *meta, store bool) {
	m.r, m.w = w.r, w.w
	if store {
		m.o = w.o
	}
}

// save makes m's last accessor w's, moving w's other records as m.moved
// says (see entry.savePacked).
func (w *wideRecords) save(m *meta) {
	switch m.moved {
	case movedStore:
		w.w, w.o = m.r, record{}
	case movedShift:
		w.o = w.r
	}
	w.r = m.r
}

// extra is the part of a granule's metadata only some detectors use, in
// a parallel array of the page: the call path and sites of the records
// with history (or the central checker), the mutex with LockMutex.
type extra struct {
	mu sync.Mutex // LockMutex's lock
	// path is the call path of the access that last updated the entry,
	// with history: a repeat from another line must be recorded, for its
	// site.
	path    atomic.Pointer[shared.SiteSlot]
	r, w, o *shared.SiteSlot // the sites of the entry's records, under its lock
}

// pathOf returns the call path x holds, nil without an extra.
func (x *extra) pathOf() *shared.SiteSlot {
	if x == nil {
		return nil
	}
	return x.path.Load()
}
