package iguard

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
)

// First records. Most granules of a big kernel are touched once, or by
// one thread in one synchronization state: a hash table's values, a
// scan's outputs, an input read once. A full entry for each would make
// such a kernel's metadata many times its data, and every first touch a
// cache miss that costs far more than the access itself.
//
// So a granule's metadata starts as one word, its slot, which holds its
// first access whole, packed (a first): the thread, the kind of access,
// and the thread's synchronization state, when that state is one a word
// can hold exactly: no warp collective, grid or tile sync and no lock
// activity yet, and few enough fences and barriers. A first touch is a
// compare-and-swap of the first into the slot: no lock, no entry, no
// record kept anywhere else, eight bytes of metadata per granule. An
// access whose first equals the slot's repeats the first access and is
// skipped, as a repeat of an entry's last update is. Any other access
// gives the granule its entry: under the entry's lock it marks the slot
// expanded, unpacks the first access, applies to the fresh entry
// exactly the update a check of that access would have made then, and
// checks as usual. Nothing else touched the granule in between
// (anything else would have expanded it first), and a check of a fresh
// entry finds no race, so no verdict moves. Atomics are firsts too: a
// check reads nothing of an access but its thread, its class and the
// thread's counters (lock inference, which reads a CAS's operands, runs
// before and apart from it). Accesses in a state a first cannot hold
// take the entry at once.
//
// A slot moves from 0 to a first, or from a first to a later store's of
// the same thread (see supersedes), by a compare-and-swap without a lock;
// and from a first (or 0) to expanded, by a compare-and-swap under the
// entry's lock; it never moves back within a launch. Slots hold no
// pointers, so the collector never scans them and storing one costs no
// write barrier. With history a first also names the access's call
// path, by the handle of its slot in the site cache (shared.SiteSlot):
// the compare-and-swap publishes the access and its site together, and a
// repeat must match both, as an entry's repeat must match its path. The
// central checker keeps full entries from the first touch, and so do
// memories a detector has learned expand anyway (density.go).

// A first is a granule's first access, packed in its slot as its
// shadow's firstLayout places the fields:
//
//	bit  63      the lock bit: set only in expanded, never in a first
//	             the handle of the access's call path (shared.SiteSlot),
//	             with history only; 0 for none
//	             the thread's global id plus one; 0 is no first
//	             the access's class (classOf): op, order and scope
//	             the thread's block's barrier epoch
//	bits  0..    the thread's fence seq
//
// Every other counter of its record is 0, and its lockset empty.
type first uint64

// expanded is a slot's value once its granule has an entry.
const expanded first = 1 << 63

// A firstLayout gives the widths of a first's fields, from the seq up,
// and the positions they make; the class is stampClassBits wide. The
// widths add up to 63 bits. Without history a first spends them on the
// thread and its counters; with history the call path's handle takes
// sixteen of them, and an access whose thread or counters no longer fit
// takes the entry at once, as any access a first cannot hold does.
type firstLayout struct {
	seqBits, barBits, threadBits, handleBits uint
	classShift, threadShift, handleShift     uint
}

// The widths of a first's fields below its class, without history
// (plain) and with it, and of its handle with history: a slot whose
// handle is wider makes its accesses take the entry.
const (
	plainSeqBits, plainBarBits, plainThreadBits = 11, 12, 30
	pathSeqBits, pathBarBits, pathThreadBits    = 7, 9, 21
	pathHandleBits                              = 16
)

// layoutFor returns the layout of firsts without call paths, or with
// them if paths.
func layoutFor(paths bool) firstLayout {
	if paths {
		return newLayout(pathSeqBits, pathBarBits, pathThreadBits, pathHandleBits)
	}
	return newLayout(plainSeqBits, plainBarBits, plainThreadBits, 0)
}

// newLayout returns the layout of the fields of these widths.
func newLayout(seq, bar, thread, handle uint) firstLayout {
	l := firstLayout{seqBits: seq, barBits: bar, threadBits: thread, handleBits: handle, classShift: seq + bar}
	l.threadShift = l.classShift + stampClassBits
	l.handleShift = l.threadShift + thread
	return l
}

// threads is how many threads, from global id 0, a first can name.
func (l *firstLayout) threads() int { return 1<<l.threadBits - 1 }

// pack packs th's access a at fence seq and barrier epoch bar, made at
// the call path of handle h (0 without history), or returns 0 when the
// fields do not fit. The caller has checked the counters a first holds
// as 0. Each layout has its own packer with constant shifts: a first is
// packed at every access's repeat test, and shifts by a variable
// amount cost several times as much.
func (l *firstLayout) pack(gid int, a *gpu.Access, seq, bar, h uint32) first {
	if l.handleBits != 0 {
		return packPath(gid, a, seq, bar, h)
	}
	if h != 0 {
		return 0
	}
	return packPlain(gid, a, seq, bar)
}

// The positions of the fields of each layout.
const (
	plainClassShift  = plainSeqBits + plainBarBits
	plainThreadShift = plainClassShift + stampClassBits
	pathClassShift   = pathSeqBits + pathBarBits
	pathThreadShift  = pathClassShift + stampClassBits
	pathHandleShift  = pathThreadShift + pathThreadBits
)

// packPlain is pack without history.
func packPlain(gid int, a *gpu.Access, seq, bar uint32) first {
	if uint(gid+1)>>plainThreadBits|uint(seq)>>plainSeqBits|uint(bar)>>plainBarBits != 0 {
		return 0
	}
	return first(uint64(gid+1)<<plainThreadShift | classOf(a.Op, a.Order, a.Scope)<<plainClassShift |
		uint64(bar)<<plainSeqBits | uint64(seq))
}

// packPath is pack with history.
func packPath(gid int, a *gpu.Access, seq, bar, h uint32) first {
	if uint(gid+1)>>pathThreadBits|uint(seq)>>pathSeqBits|uint(bar)>>pathBarBits|uint(h)>>pathHandleBits != 0 {
		return 0
	}
	return first(uint64(h)<<pathHandleShift | uint64(gid+1)<<pathThreadShift |
		classOf(a.Op, a.Order, a.Scope)<<pathClassShift | uint64(bar)<<pathSeqBits | uint64(seq))
}

// thread returns the global id of f's thread.
func (l *firstLayout) thread(f first) int {
	return int(uint64(f)>>l.threadShift&(1<<l.threadBits-1)) - 1
}

// handle returns the handle of f's call path; 0 without history.
func (l *firstLayout) handle(f first) uint32 {
	return uint32(uint64(f) >> l.handleShift & (1<<l.handleBits - 1))
}

// unpack returns f's access, for a check of a fresh entry, which needs
// nothing of its thread's state.
func (l *firstLayout) unpack(f first) access {
	var a gpu.Access
	a.Op, a.Order, a.Scope = classParts(uint64(f) >> l.classShift)
	r := record{tid: l.thread(f) + 1, op: a.Op, order: a.Order, scope: a.Scope, strong: isStrong(&a),
		seq: uint32(f) & (1<<l.seqBits - 1), bar: uint32(uint64(f)>>l.seqBits) & (1<<l.barBits - 1)}
	return access{rec: r, store: a.Op.Writes()}
}

// firstWord is a slot, read and written atomically.
type firstWord struct{ v atomic.Uint64 }

// Load atomically loads the slot.
func (w *firstWord) Load() first { return first(w.v.Load()) }

// Store atomically stores f.
func (w *firstWord) Store(f first) { w.v.Store(uint64(f)) }

// CompareAndSwap atomically replaces old with f, reporting whether it did.
func (w *firstWord) CompareAndSwap(old, f first) bool {
	return w.v.CompareAndSwap(uint64(old), uint64(f))
}

// firstPage holds the slots of a page of granules, allocated at the
// first touch of one of them.
type firstPage [1 << pageBits]firstWord

// slot returns granule g's slot.
func (s *shadow) slot(g uint64) *firstWord {
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
		// A slot's first use is a load, then a CAS. On memory the OS
		// has not backed yet, the load maps the shared zero page and
		// the CAS faults a second time to copy it; a store now takes
		// the one fault that backs the page (BenchmarkLargeLaunch,
		// run cold, measures it).
		p[0].Store(0)
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

// settleFirst reports whether th's access a to granule g, whose first
// is f (0 when a first cannot hold it), is settled without an entry: as
// g's first access, or as a repeat of it. Otherwise g needs its entry,
// and hasEntry reports whether it is known to have it.
func (s *shadow) settleFirst(th *thread, a *gpu.Access, g uint64, f first) (done, hasEntry bool) {
	slot := s.slot(g)
	v := slot.Load()
	switch {
	case v == expanded:
		return false, true
	case f == 0:
		return false, false
	case v == f:
		return th.counted(&th.n.repeats), false
	}
	if (v == 0 || th.supersedes(a, s.lay.thread(v))) && slot.CompareAndSwap(v, f) {
		th.n.firsts++
		return th.counted(&th.n.checks), false
	}
	return false, false
}

// supersedes reports whether th's store a may replace a first of the
// thread with global id owner in a slot: th's own first, against which a
// check of a alone would take the program-order shortcut and leave the
// entry exactly as a check of a on a fresh entry, since neither access
// holds a lock (a first holds none). So x[i] = f(x[i]) keeps one word;
// with history the slot then names the store's call path, as an entry
// would name its last writer's.
func (th *thread) supersedes(a *gpu.Access, owner int) bool {
	return a.Op == gpu.OpStore && owner == th.gid
}

// expand gives s's granule g its entry e, applying the first access's
// update in its slot, with its call path's slot as its site (history),
// unless it has it already. Preconditions: e locked.
func (l *launch) expand(s *shadow, g uint64, e *entry, x *extra) {
	slot := s.slot(g)
	for {
		v := slot.Load()
		if v == expanded {
			return
		}
		// Mark, then apply: a store superseding the first (see
		// supersedes) changes the slot without the lock, and would be
		// lost if the first were applied before. Nobody else reads the
		// entry before this check unlocks it.
		if slot.CompareAndSwap(v, expanded) {
			if v != 0 {
				c := s.lay.unpack(v)
				var m meta
				var none finding
				m.check(&c, l.d.sites.Slot(s.lay.handle(v)), x, &none) // a fresh entry: no race
				s.save(g, e, &m, &l.sets)
			}
			return
		}
	}
}
