package iguard

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// Lock inference follows ScoRD (ISCA'20): a successful CAS(0→v),
// v ≠ 0, on a word makes the thread a candidate holder of the lock at that
// word; a later fence of adequate scope — any fence at least as wide as the
// CAS — activates it (a block fence does not activate a device lock, so
// such a lock is as narrow as its narrowest part); an Exch or strong store
// of 0 to the word releases it. Only active locks protect data. iGUARD
// counts any CAS as an acquire and any Exch as a release; ScoRD's stricter
// reading gives no false locks to CAS loops that are not locks.

// A lockKey names the word a lock lives at.
type lockKey struct {
	mem   *gpu.Memory
	gran  uint64 // granule index
	index int    // the element the lock's CAS named, for reports
}

// A lockID is one identity of a held lock. A block-scope lock is the pair
// (word, block), so block locks taken in two blocks never intersect; a
// device-scope lock has both identities (word, -1) and (word, block), so
// it also intersects a block lock on the same word taken in its own block
// (ScoR's norace_interwarp_dev-blklock_waw).
type lockID struct {
	key   lockKey
	block int
}

// A lockSet is an immutable, sorted set of lock identities; nil is empty.
// Sets are exact: iGUARD's 16-bit bloom filter aliases locks 256 bytes
// apart, hiding races, and holding more than a few locks is rare enough
// that a short sorted slice costs less than hashing. Only its ref, the
// handle the launch that last named it gave it (see lockTable), changes.
type lockSet struct {
	ids []lockID
	ref atomic.Pointer[lockRef]
}

func (s *lockSet) empty() bool { return s == nil || len(s.ids) == 0 }

// intersect returns s ∩ o, reusing s or o when the result equals one. It
// allocates only for a result that is neither: every check of a locked
// access intersects, and most intersections equal one of their sets.
func (s *lockSet) intersect(o *lockSet) *lockSet {
	switch {
	case s.empty() || o.empty():
		return nil
	case s == o:
		return s
	}
	switch n := s.common(o); n {
	case 0:
		return nil
	case len(s.ids):
		return s
	case len(o.ids):
		return o
	default:
		return &lockSet{ids: slices.DeleteFunc(slices.Clone(s.ids), func(id lockID) bool { return !o.has(id) })}
	}
}

// common counts the identities of s that o holds.
func (s *lockSet) common(o *lockSet) int {
	n := 0
	for _, id := range s.ids {
		if o.has(id) {
			n++
		}
	}
	return n
}

// has reports whether s holds id.
func (s *lockSet) has(id lockID) bool {
	_, ok := slices.BinarySearchFunc(s.ids, id, compareLock)
	return ok
}

// disjoint reports whether s and o share no identity.
func (s *lockSet) disjoint(o *lockSet) bool {
	return s.empty() || o.empty() || s != o && s.common(o) == 0
}

func compareLock(a, b lockID) int {
	if c := shared.CompareKeys(shared.KeyOf(a.key.mem), shared.KeyOf(b.key.mem)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.key.gran, b.key.gran); c != 0 {
		return c
	}
	return cmp.Compare(a.block, b.block)
}

// heldLock is an entry of a lock table.
type heldLock struct {
	key    lockKey
	scope  scope.Scope // the acquiring CAS's scope
	active bool        // a fence of adequate scope followed the CAS
	lane   int         // the lane that acquired it
	block  int
}

// held is a lock table and a snapshot of its active identities, which
// checks read without the table's lock.
type held struct {
	locks []heldLock
	set   atomic.Pointer[lockSet]
	n     atomic.Int32  // len(locks), for fences to skip an empty table
	ver   atomic.Uint32 // bumped when set changes, for entry stamps
	// last is the last non-empty set published, reused while the active
	// identities are the same: a lock taken and released in a loop
	// activates the same set every time. ids is publish's scratch.
	last *lockSet
	ids  []lockID
	// small holds the sets of one or two identities (a lock, or two
	// block locks) this table published, for publish to reuse: lanes
	// sharing a warp table, each taking its own lock in turn, publish
	// one set per lane over and over, each a new object to allocate
	// otherwise. At most maxSmallSets.
	small map[smallKey]*lockSet
}

// A smallKey is the identities of a set of at most two, the second zero
// for a set of one.
type smallKey [2]lockID

// maxSmallSets bounds held.small: a table that has published more sets
// of one lock starts its cache afresh.
const maxSmallSets = 64

// heldArrays are the parts of a lock table kept across recyclings, so that
// a lock-heavy kernel's tables do not allocate at every block start.
type heldArrays struct {
	locks []heldLock
	ids   []lockID
	small map[smallKey]*lockSet
}

// keep returns h's arrays emptied and cleared, for reuse by a new launch:
// their old elements name the last launch's memories. Elements past the
// length are zero already in locks (slices.DeleteFunc clears them) but
// not in ids, which publish reslices.
func (h *held) keep() heldArrays {
	clear(h.locks)
	ids := h.ids[:cap(h.ids)]
	clear(ids)
	clear(h.small)
	return heldArrays{h.locks[:0], ids[:0], h.small}
}

// reuse gives a zeroed h the arrays keep returned.
func (h *held) reuse(a heldArrays) { h.locks, h.ids, h.small = a.locks, a.ids, a.small }

func (h *held) acquire(l heldLock) {
	h.locks = slices.DeleteFunc(h.locks, func(o heldLock) bool { return o.key == l.key })
	h.locks = append(h.locks, l)
	h.publish()
}

func (h *held) release(k lockKey) {
	h.locks = slices.DeleteFunc(h.locks, func(l heldLock) bool { return l.key == k })
	h.publish()
}

// activate turns on the pending locks a fence of scope s validates.
func (h *held) activate(s scope.Scope) {
	changed := false
	for i := range h.locks {
		if l := &h.locks[i]; !l.active && s >= l.scope {
			l.active, changed = true, true
		}
	}
	if changed {
		h.publish()
	}
}

// publish recomputes the snapshot of active identities. A set, once
// published, is never changed: checks hold it in entries. The version
// counts changes of the snapshot alone, bumped before the new set shows:
// a pending lock changes no check (checks read active identities only),
// so a CAS(0→v) that is never fenced, as every insert into a hash table
// is, leaves the thread's accesses repeatable and its first accesses
// eligible for first records (see thread.stamps).
func (h *held) publish() {
	h.n.Store(int32(len(h.locks)))
	if s := h.active(); s != h.set.Load() {
		h.ver.Add(1)
		h.set.Store(s)
	}
}

// active returns the set of h's active identities: nil, the set h
// published last if it has the same identities, or one setOf gives.
func (h *held) active() *lockSet {
	ids := h.ids[:0]
	for _, l := range h.locks {
		if !l.active {
			continue
		}
		ids = append(ids, lockID{l.key, l.block})
		if l.scope >= scope.Device {
			ids = append(ids, lockID{l.key, -1})
		}
	}
	h.ids = ids
	if len(ids) == 0 {
		return nil
	}
	slices.SortFunc(ids, compareLock)
	ids = slices.CompactFunc(ids, func(a, b lockID) bool { return a == b })
	if h.last == nil || !slices.Equal(h.last.ids, ids) {
		h.last = h.setOf(ids)
	}
	return h.last
}

// setOf returns a set of ids, sorted and distinct: one h published
// before, if it has ids and they are at most two, else a new one.
func (h *held) setOf(ids []lockID) *lockSet {
	if len(ids) > 2 {
		return &lockSet{ids: slices.Clone(ids)}
	}
	var k smallKey
	copy(k[:], ids)
	if s := h.small[k]; s != nil {
		return s
	}
	if h.small == nil || len(h.small) == maxSmallSets {
		h.small = make(map[smallKey]*lockSet, maxSmallSets)
	}
	s := &lockSet{ids: slices.Clone(ids)}
	h.small[k] = s
	return s
}

// lockSet returns the identities of the locks th holds now. Another
// lane may switch the warp to per-thread tables at any moment (see
// splitLocked): a set read from the warp table counts only if the warp
// was still in warp mode after the read, for the switch empties that
// table after it has filled the lanes' own and set perThread.
func (th *thread) lockSet() *lockSet {
	w := th.w
	if !w.perThread.Load() {
		s := w.table.set.Load()
		if !w.perThread.Load() {
			return s
		}
	}
	return th.locks.set.Load()
}

// table runs f on the lock table th uses: the warp's, shared by its lanes
// (the "lane 0 locks for the warp" protocol), or th's own once per-thread
// locking has been seen in the warp.
func (th *thread) table(f func(h *held)) {
	w := th.w
	if !w.perThread.Load() {
		w.mu.Lock()
		if !w.perThread.Load() {
			f(&w.table)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
	f(&th.locks)
}

// lockAccess updates th's locks for access a: a CAS(0→v) is an acquire
// candidate; an Exch or strong store of 0 releases.
func (th *thread) lockAccess(a gpu.Access, gran uint64) {
	k := lockKey{a.Mem, gran, a.Index}
	switch {
	case a.Op == gpu.OpCAS && a.Cmp == 0 && a.Arg != 0 && a.Succeeded():
		th.acquire(heldLock{key: k, scope: a.Scope, lane: th.lane, block: th.blk.id})
	case a.Arg == 0 && (a.Op == gpu.OpExch || a.Op == gpu.OpStore && a.Order != gpu.Weak):
		th.table(func(h *held) { h.release(k) })
	}
}

// acquire adds l to th's table. iGUARD switches a warp to per-thread
// tables when several lanes execute a CAS at once; lanes never run in
// lockstep here, so the switch happens when a lane acquires while another
// lane of its warp holds a lock in the warp table: the lanes lock for
// themselves, not for the warp. The switch hands each held lock to the
// table of the lane that took it and is never undone within the launch.
func (th *thread) acquire(l heldLock) {
	w := th.w
	if !w.perThread.Load() {
		w.mu.Lock()
		if !w.perThread.Load() && !w.otherLane(th.lane) {
			w.table.acquire(l)
			w.mu.Unlock()
			return
		}
		w.splitLocked(th.blk)
		w.mu.Unlock()
	}
	th.locks.acquire(l)
}

// otherLane reports whether the warp table holds a lock another lane took.
func (w *warp) otherLane(lane int) bool {
	return slices.ContainsFunc(w.table.locks, func(l heldLock) bool { return l.lane != lane })
}

// splitLocked moves the warp table's locks to their lanes' own tables and
// switches the warp to per-thread tables. The lanes' tables are untouched
// until then, and each lane reads perThread before using its own.
// Preconditions: w.mu held.
func (w *warp) splitLocked(b *block) {
	if w.perThread.Load() {
		return
	}
	for _, l := range w.table.locks {
		th := &b.threads[w.first+l.lane]
		th.locks.locks = append(th.locks.locks, l)
		th.locks.publish()
	}
	w.perThread.Store(true) // before the warp table empties: lockSet relies on it
	w.table.locks = nil
	w.table.publish()
}

// fenceLocks activates th's pending locks a fence of scope s validates.
// An empty warp table read in warp mode may be one a switch just emptied
// (see lockSet), so the own table is looked at after it.
func (th *thread) fenceLocks(s scope.Scope) {
	w := th.w
	if !w.perThread.Load() && w.table.n.Load() != 0 {
		th.table(func(h *held) { h.activate(s) })
		return
	}
	if w.perThread.Load() && th.locks.n.Load() != 0 {
		th.locks.activate(s)
	}
}
