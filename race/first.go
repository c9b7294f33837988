package race

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/warpguard/warpguard/gpu"
)

// First records. Most granules of a big kernel are touched once, or by
// one thread in one synchronization state: a hash table's values, a
// scan's outputs, an input read once. A full entry for each (128 bytes
// per 4-byte granule) would make such a kernel's metadata 32 times its
// data, and every first touch a cache miss that costs far more than the
// access itself.
//
// So a granule's metadata starts as one word, its slot, which holds the
// stamp of its first access; the accessing thread keeps the record of
// that access, one for all its first touches in one synchronization
// state with one kind of access (64 bytes, in the block's state, reused
// from launch to launch). A first touch is a compare-and-swap of the
// stamp into the slot: no lock, no entry, eight bytes of metadata per
// granule. An access whose stamp equals the slot's repeats the first
// access and is skipped, as a repeat of an entry's last update is. Any
// other access gives the granule its entry: under the entry's lock it
// marks the slot expanded, finds the first access's record by its stamp,
// applies to the fresh entry exactly the update a check of that access
// would have made then, and checks as usual. Nothing else touched the
// granule in between (anything else would have expanded it first), and a
// check of a fresh entry finds no race, so no verdict moves. Atomics take
// the entry at once.
//
// A slot moves from 0 to a stamp, or from a stamp to a later store's of
// the same thread (see supersedes), by a compare-and-swap without a lock;
// and from a stamp (or 0) to expanded, by a compare-and-swap under the
// entry's lock; it never moves back within a launch. Slots hold no
// pointers, so the collector never scans them and storing one costs no
// write barrier. Detectors that record sites (history, the central
// checker) keep full entries from the first touch: their first touches
// need a site each. So do memories a detector has learned expand anyway
// (density.go).

// expanded is a slot's value once its granule has an entry. No stamp has
// the lock bit set (see stamp).
const expanded = locked

// A first is the record of a thread's first accesses to granules, shared
// by the granules it touched first in one synchronization state with one
// kind of access. It never changes once published.
type first struct {
	c     access
	stamp stamp // c's stamp, which the slots of those granules hold
}

// firstPage holds the slots of a page of granules, allocated at the
// first touch of one of them.
type firstPage [1 << pageBits]stampWord

// slot returns granule g's slot.
func (s *shadow) slot(g uint64) *stampWord {
	p := s.pages[g>>pageBits].f.Load()
	if p == nil {
		p = s.allocSlots(g >> pageBits)
	}
	return &p[g&(1<<pageBits-1)]
}

//go:noinline
func (s *shadow) allocSlots(i uint64) *firstPage {
	p, ok := s.fpool.Get().(*firstPage)
	if !ok {
		p = new(firstPage)
	}
	if s.pages[i].f.CompareAndSwap(nil, p) {
		s.bytes.Add(s.used(i) * 8)
		return p
	}
	s.fpool.Put(p)
	return s.pages[i].f.Load()
}

// used returns how many granules of page i the memory has.
func (s *shadow) used(i uint64) int64 {
	return int64(min(1<<pageBits, s.n-i<<pageBits))
}

// releaseSlots zeroes the used slots of page i and returns the page to
// the pool. It returns the bytes the page held, and how many of its
// granules were expanded and how many had only their first record.
func (s *shadow) releaseSlots(i uint64) (bytes, exp, once int64) {
	p := s.pages[i].f.Swap(nil)
	if p == nil {
		return 0, 0, 0
	}
	n := s.used(i)
	for j := range p[:n] {
		switch v := p[j].Load(); v {
		case 0:
		case expanded:
			exp++
		default:
			once++
		}
	}
	clear(p[:n])
	s.fpool.Put(p)
	return n * 8, exp, once
}

// settleFirst reports whether th's access a to granule g, whose repeat stamp
// is stamp, is settled without an entry: as g's first access, or as a
// repeat of it. Otherwise g needs its entry, and hasEntry reports
// whether it is known to have it.
func (s *shadow) settleFirst(th *thread, a *gpu.Access, g uint64, st stamp) (done, hasEntry bool) {
	slot := s.slot(g)
	v := slot.Load()
	switch {
	case v == expanded:
		return false, true
	case st == 0 || a.Op.IsRMW():
		// Atomics are how threads meet: their words are rarely touched
		// once, and expanding a first record costs more than it saved.
		return false, false
	case v == st:
		return th.counted(&th.n.repeats), false
	}
	// The lockset is read once: another lane may be publishing the
	// warp's lock table, and a record must carry the set the decision
	// to supersede saw.
	locks := th.lockSet()
	if (v == 0 || th.supersedes(a, v, locks)) && th.keepFirst(a, st, locks) && slot.CompareAndSwap(v, st) {
		th.n.firsts++
		return th.counted(&th.n.checks), false
	}
	return false, false
}

// supersedes reports whether th's store a, holding locks, may replace
// th's own first record with stamp v in a slot: a check of a against
// that record alone would take the program-order shortcut and leave the
// entry exactly as a check of a on a fresh entry, when neither access
// held a lock (a lockset would be intersected). So x[i] = f(x[i]) keeps
// one word.
func (th *thread) supersedes(a *gpu.Access, v stamp, locks *lockSet) bool {
	if a.Op != gpu.OpStore || v.thread() != th.gid || !locks.empty() {
		return false
	}
	f := th.firsts.find(v)
	return f != nil && f.c.locks.empty()
}

// expand gives the granule whose slot is slot its entry e, applying its
// first access's update, unless it has it already. Preconditions: e
// locked. It returns the stamp in the slot, leaving slot and entry as
// they were, if no thread kept a record of it (a bug of this package),
// else 0.
func (l *launch) expand(slot *stampWord, e *entry, x *extra) stamp {
	for {
		v := slot.Load()
		if v == expanded {
			return 0
		}
		var f *first
		if v != 0 {
			if f = l.firstBy(v); f == nil {
				return v
			}
		}
		// Mark, then apply: a store superseding the first record (see
		// supersedes) changes the slot without the lock, and would be
		// lost if the record were applied first. Nobody else reads the
		// entry before this check unlocks it.
		if slot.CompareAndSwap(v, expanded) {
			if f != nil {
				var none finding
				e.check(&f.c, nil, x, &none) // a fresh entry: no race
			}
			return 0
		}
	}
}

// firstBy returns the first record with stamp, which its thread kept
// before any slot held the stamp, or nil.
func (l *launch) firstBy(st stamp) *first {
	gid := st.thread()
	if b := l.block[gid/l.g.BlockSize].Load(); b != nil {
		return b.threads[gid%l.g.BlockSize].firsts.find(st)
	}
	return nil
}

// lostFirst is the panic of a check that found a slot with a stamp no
// thread kept a record of, after it unlocked the entry: a bug of this
// package, reported with the place, not a hang of the other threads.
func lostFirst(s *shadow, g uint64, st stamp) string {
	return fmt.Sprintf("race: granule %d of %v holds the stamp %#x of thread %d, which kept no record of it",
		g, s.mem, uint64(st), st.thread())
}

// A firstList is a thread's first records of a launch, in the order it
// made them. Only the thread appends; any thread expanding a granule
// reads. A record is written before the count that publishes it, and
// never moves: the first lives in the list, the next in chunks of 4, 8,
// 16, ... records, allocated as needed. The chunks belong to the block's
// state and outlive the launch, for the next launch that reuses it.
type firstList struct {
	n      atomic.Uint32
	head   first
	chunks *firstChunkSet
}

// A firstChunkSet is a thread's chunks of first records.
type firstChunkSet [firstChunks]atomic.Pointer[first]

// firstChunks bounds a thread's first records per launch at
// 1+4(2^firstChunks-1), about 260 000; past them its first touches take
// entries.
const firstChunks = 16

// at returns record i, which must exist.
func (fl *firstList) at(i uint32) *first {
	if i == 0 {
		return &fl.head
	}
	k, off := chunkOf(i - 1)
	return &unsafe.Slice(fl.chunks[k].Load(), 4<<k)[off]
}

// chunkOf returns the chunk holding record j+1, and its offset there:
// chunk k holds 4<<k records, from 4(2^k-1).
func chunkOf(j uint32) (k int, off uint32) {
	k = bits.Len32(j/4+1) - 1
	return k, j - 4*(1<<k-1)
}

// find returns the record with stamp, or nil. Records are made in
// nondecreasing order of their stamps' low 32 bits (gen: a sum of
// counters that only grow), so a binary search finds the run of records
// of one synchronization state; a linear scan stands behind it in case a
// sum wrapped.
func (fl *firstList) find(st stamp) *first {
	n := fl.n.Load()
	gen := st.gen()
	lo, hi := uint32(0), n
	for lo < hi {
		if m := lo + (hi-lo)/2; fl.at(m).stamp.gen() < gen {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < n && fl.at(i).stamp.gen() == gen; i++ {
		if f := fl.at(i); f.stamp == st {
			return f
		}
	}
	for i := range n {
		if f := fl.at(i); f.stamp == st {
			return f
		}
	}
	return nil
}

// keepFirst makes sure th keeps a record of its access a, whose stamp is
// stamp, holding locks, for a first touch, and reports whether it does.
// The records of th's current state are the last ones it made (their gen
// is the current one); one of them with the same stamp is a record of
// this access, unless th's lockset changed under the stamp (another lane
// changed the warp's lock table between the stamp and now): then the
// access takes an entry rather than keep two records with one stamp.
func (th *thread) keepFirst(a *gpu.Access, st stamp, locks *lockSet) bool {
	fl := &th.firsts
	n := fl.n.Load()
	for i := n; i > 0; i-- {
		f := fl.at(i - 1)
		if f.stamp.gen() != st.gen() {
			break
		}
		if f.stamp == st {
			return f.c.locks == locks
		}
	}
	return th.addFirst(a, st, locks, n)
}

// addFirst appends th's record of access a, with lockset locks, as
// record n, if the record's stamp is stamp and the list has room.
//
//go:noinline
func (th *thread) addFirst(a *gpu.Access, st stamp, locks *lockSet, n uint32) bool {
	f, b := th.firsts.room(n)
	if f == nil {
		return false
	}
	if b > 0 { // metadata: counted while a launch uses the block
		th.blk.firstBytes.Add(b)
		th.l.d.bytes.Add(b)
	}
	th.fill(&f.c.rec, a)
	f.stamp = f.c.rec.stamp()
	if f.stamp != st {
		return false // the state moved since the stamp: not a record of it
	}
	f.c.locks, f.c.store = locks, a.Op.Writes()
	th.firsts.n.Store(n + 1) // publishes it
	return true
}

// room returns record n of a list of n, unpublished, and the bytes of
// the chunk it allocated for it, if it had to; or nil when the list is
// full.
func (fl *firstList) room(n uint32) (*first, int64) {
	var b int64
	if n > 0 {
		switch k, off := chunkOf(n - 1); {
		case k >= firstChunks:
			return nil, 0
		case off == 0 && fl.chunks[k].Load() == nil:
			fl.chunks[k].Store(&make([]first, 4<<k)[0])
			b = int64(4<<k) * int64(unsafe.Sizeof(first{}))
		}
	}
	return fl.at(n), b
}
