package iguard

import (
	"maps"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
)

// pageBits sets the entries per metadata page: 256, 32 KiB of entries
// (and 10 KiB of extras where a detector keeps them).
const pageBits = 8

// repeats reports whether an access with stamp and call path would repeat
// the last update of granule g; a zero stamp (a thread too far into a big
// grid to have one) repeats nothing. Reading the two words without the lock may
// pair one access's stamp with another's path; a match then still means
// an access of this thread, in this synchronization state, was the last
// to complete, and another thread's update in progress checks against that
// access, which is what it would check against this one.
func (s *shadow) repeats(g uint64, st stamp, path *shared.SiteSlot) bool {
	e, x := s.at(g)
	return st != 0 && e.word.Load() == st && x.pathOf() == path
}

// settles reports whether th's access a to granule g, with call path
// path, is settled without a check under the entry's lock: as the
// granule's first access or a repeat of it (with first records), or as a
// repeat of the entry's last update. It counts which. Otherwise hasEntry
// reports whether g is known to have its entry. at is the slot a record
// of a names as its site (path, or with history a bare slot of its site
// when path is nil), which a first holds by its handle.
func (s *shadow) settles(th *thread, a *gpu.Access, g uint64, path, at *shared.SiteSlot) (done, hasEntry bool) {
	h, ok := at.Handle()
	if !ok {
		h = noHandle
	}
	st, f := th.stamps(a, &s.lay, h)
	if !s.firsts {
		return s.repeats(g, st, path) && th.counted(&th.n.repeats), true
	}
	// The entry first, without reading the slot: a thread spinning on a
	// word, or checking one many threads use, then reads only the
	// entry; and a slot shares its cache line with seven others, which
	// other cores' first touches write. An entry's word is not 0 once a
	// check has locked it (after its expansion, or while the check that
	// expands it holds it); 0 may still mean a stamp-less thread's update
	// or LockMutex's, which the slot then settles.
	if p := s.pages[g>>pageBits].e.Load(); p != nil {
		i := g & (1<<pageBits - 1)
		switch w := p.e[i].word.Load(); {
		case w == st && st != 0 && (p.x == nil || p.x[i].path.Load() == path):
			return th.counted(&th.n.repeats), true
		case w != 0:
			return false, true
		}
	}
	return s.settleFirst(th, a, g, f)
}

// noHandle stands for a slot with no handle: no first's handle field
// holds it, so the access takes the entry.
const noHandle = 1<<32 - 1

// counted adds one to th's counter c and returns true.
func (th *thread) counted(c *uint64) bool {
	*c++
	return true
}

// A page is the metadata of 1<<pageBits granules: entries, and their
// extras when the detector uses them.
type page struct {
	e []entry
	x []extra
	// wide holds the records of the page's entries with fWide set,
	// allocated when the first of them goes wide.
	wide atomic.Pointer[widePage]
}

// A widePage is a page's records kept whole (see packed).
type widePage [1 << pageBits]wideRecords

// wide returns the whole records of granule g, whose entry exists,
// allocating its page's wide array on first use.
func (s *shadow) wide(g uint64) *wideRecords {
	p := s.pages[g>>pageBits].e.Load()
	w := p.wide.Load()
	if w == nil {
		w = s.allocWide(p)
	}
	return &w[g&(1<<pageBits-1)]
}

//go:noinline
func (s *shadow) allocWide(p *page) *widePage {
	w := new(widePage)
	if p.wide.CompareAndSwap(nil, w) {
		s.bytes.Add(int64(unsafe.Sizeof(*w)))
		return w
	}
	return p.wide.Load()
}

// pageBytes is the metadata page p holds: its entries, extras and wide
// array.
func (s *shadow) pageBytes(p *page) int64 {
	b := int64(len(p.e)) * granuleBytes(s.extras)
	if p.wide.Load() != nil {
		b += int64(unsafe.Sizeof(widePage{}))
	}
	return b
}

// A shadow is the metadata of one gpu.Memory, allocated a page at a time
// on first touch so untouched memory costs nothing.
type shadow struct {
	mem    *gpu.Memory
	key    shared.MemKey // mem's key, kept beside the pointer for the registry's scan
	n      uint64        // granules
	pages  []pageRef
	extras bool          // pages carry extras
	bytes  *atomic.Int64 // the detector's byte count
	// widened is the detector's count of entries gone wide.
	widened *atomic.Uint64
	pool    *sync.Pool // the detector's spare full pages
	// firsts: granules start with first records in slots (see
	// first.go), rather than with entries.
	firsts bool
	lay    firstLayout // how its firsts are packed
	fpool  *sync.Pool  // the detector's spare slot pages, zeroed
	dens   *densities  // where it learns which memories want first records
}

// pageRef is a page of granules' entries and slots, each allocated on
// first use: one array for both costs a short launch one allocation
// less per memory.
type pageRef struct {
	e atomic.Pointer[page]
	f atomic.Pointer[firstPage]
}

// at returns granule g's entry, and its extra or nil.
func (s *shadow) at(g uint64) (*entry, *extra) {
	p := s.pages[g>>pageBits].e.Load()
	if p == nil {
		p = s.alloc(g >> pageBits)
	}
	i := g & (1<<pageBits - 1)
	if p.x == nil {
		return &p.e[i], nil
	}
	return &p.e[i], &p.x[i]
}

// granuleBytes is the metadata a granule costs with extras or without.
func granuleBytes(extras bool) int64 {
	if extras {
		return int64(unsafe.Sizeof(entry{}) + unsafe.Sizeof(extra{}))
	}
	return int64(unsafe.Sizeof(entry{}))
}

//go:noinline
func (s *shadow) alloc(i uint64) *page {
	n := min(1<<pageBits, s.n-i<<pageBits)
	p := s.newPage(n)
	if s.pages[i].e.CompareAndSwap(nil, p) {
		s.bytes.Add(int64(n) * granuleBytes(s.extras))
		return p
	}
	s.recycle(p)
	return s.pages[i].e.Load()
}

// newPage returns a zeroed page of n entries, reusing a page an earlier
// launch or block freed: a launch starts from clean metadata, and
// allocating it afresh each time made the garbage collector most of the
// cost of a first touch, and of a short launch. Every page has room for
// 1<<pageBits entries, so that any page can be reused for any memory;
// pages of one detector all have extras or none.
func (s *shadow) newPage(n uint64) *page {
	p, ok := s.pool.Get().(*page)
	if !ok {
		p = &page{e: make([]entry, 1<<pageBits)}
		if s.extras {
			p.x = make([]extra, 1<<pageBits)
		}
	}
	p.e = p.e[:n]
	clear(p.e)
	if p.x != nil {
		p.x = p.x[:n]
		clear(p.x)
	}
	return p
}

// recycle keeps a page for reuse.
func (s *shadow) recycle(p *page) {
	p.wide.Store(nil)
	p.e = p.e[:cap(p.e)]
	if p.x != nil {
		p.x = p.x[:cap(p.x)]
	}
	s.pool.Put(p)
}

// release recycles s's pages and returns the bytes they held. Nothing may
// access s afterwards.
func (s *shadow) release() int64 {
	var b, exp, once int64
	for i := range s.pages {
		if p := s.pages[i].e.Swap(nil); p != nil {
			b += s.pageBytes(p)
			s.recycle(p)
		}
		sb, se, so := s.releaseSlots(uint64(i))
		b, exp, once = b+sb, exp+se, once+so
	}
	if s.firsts {
		s.dens.learn(s.mem, exp, once)
	}
	return b
}

// shadows maps a launch's memories, by their shared.MemKey, to their metadata.
// Readers take no lock: a reader lock here would be a shared counter that
// every access of every core writes to. The first memories a launch uses
// sit in a small array, found by a scan and added without copying
// anything (a slot whose memory was freed stays empty and is not reused,
// so once eight blocks with shared memory have run, later memories go to
// the map); past it, an immutable map that writers copy. Writers (a memory's first touch, a block's end)
// are serialized by mu.
type shadows struct {
	gran    uint64
	extras  bool        // pages carry extras: history, the central checker, or LockMutex
	firsts  bool        // granules may start with first records (see density.go)
	lay     firstLayout // how firsts are packed: with call paths, for history
	bytes   *atomic.Int64
	widened *atomic.Uint64
	pool    *sync.Pool
	fpool   *sync.Pool // spare first pages
	dens    *densities
	mu      sync.Mutex // serializes writers
	few     [8]atomic.Pointer[shadow]
	nfew    atomic.Int32 // slots of few in use
	m       atomic.Pointer[map[shared.MemKey]*shadow]
}

func newShadows(d *Engine) *shadows {
	return &shadows{gran: uint64(d.opt.Granularity), extras: d.paths || d.opt.Lock == LockMutex,
		firsts: !d.opt.Central && !d.opt.FullEntries, lay: layoutFor(d.paths), bytes: &d.bytes, widened: &d.totals.widened, pool: &d.pages, fpool: &d.firstPages, dens: &d.dens}
}

// get returns m's metadata, creating it on first use.
func (ss *shadows) get(m *gpu.Memory) *shadow {
	if s := ss.lookup(shared.KeyOf(m)); s != nil {
		return s
	}
	return ss.add(m)
}

// lookup returns the metadata of the memory with key k, or nil.
func (ss *shadows) lookup(k shared.MemKey) *shadow {
	n := int(ss.nfew.Load())
	for i := range n {
		if s := ss.few[i].Load(); s != nil && s.key == k {
			return s
		}
	}
	if mp := ss.m.Load(); n == len(ss.few) && mp != nil {
		return (*mp)[k]
	}
	return nil
}

//go:noinline
func (ss *shadows) add(m *gpu.Memory) *shadow {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.lookup(shared.KeyOf(m)); s != nil {
		return s
	}
	gb := uint64(1) << shared.Shift(m, uint(bits.TrailingZeros64(ss.gran)))
	n := (uint64(m.Bytes()) + gb - 1) / gb
	s := &shadow{mem: m, key: shared.KeyOf(m), n: n, pages: make([]pageRef, (n+1<<pageBits-1)>>pageBits), extras: ss.extras,
		bytes: ss.bytes, widened: ss.widened, pool: ss.pool, firsts: ss.firsts && ss.dens.firsts(m), lay: ss.lay, fpool: ss.fpool, dens: ss.dens}
	if i := ss.nfew.Load(); int(i) < len(ss.few) {
		ss.few[i].Store(s)
		ss.nfew.Store(i + 1)
		return s
	}
	next := map[shared.MemKey]*shadow{}
	if old := ss.m.Load(); old != nil {
		next = maps.Clone(*old)
	}
	next[s.key] = s
	ss.m.Store(&next)
	return s
}

// drop removes the memories keep rejects, recycling their pages.
func (ss *shadows) drop(keep func(*shadow) bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i := range ss.few {
		if s := ss.few[i].Load(); s != nil && !keep(s) {
			ss.bytes.Add(-s.release())
			ss.few[i].Store(nil)
		}
	}
	old := ss.m.Load()
	if old == nil || !dropsAny(*old, keep) {
		return // most blocks have no shared memory: copy nothing
	}
	next := maps.Clone(*old)
	for k, s := range next {
		if !keep(s) {
			ss.bytes.Add(-s.release())
			delete(next, k)
		}
	}
	ss.m.Store(&next)
}

// dropsAny reports whether keep rejects a memory of m.
func dropsAny(m map[shared.MemKey]*shadow, keep func(*shadow) bool) bool {
	for _, s := range m {
		if !keep(s) {
			return true
		}
	}
	return false
}

// freeBlock drops the metadata of block id's shared memories, which die
// with the block.
func (ss *shadows) freeBlock(id int) {
	ss.drop(func(s *shadow) bool { return s.mem.Space != gpu.SharedSpace || s.mem.Block != id })
}

// all returns the metadata of every memory the launch has touched.
func (ss *shadows) all() []*shadow {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []*shadow
	for i := range ss.few {
		if s := ss.few[i].Load(); s != nil {
			out = append(out, s)
		}
	}
	if m := ss.m.Load(); m != nil {
		for _, s := range *m {
			out = append(out, s)
		}
	}
	return out
}

// free drops every memory's metadata at the end of the launch.
func (ss *shadows) free() { ss.drop(func(*shadow) bool { return false }) }

// shadowOf returns the metadata of m, remembering the last two memories
// th used so that accesses to them skip the registry.
func (th *thread) shadowOf(m *gpu.Memory) *shadow {
	if s := th.cache[0]; s != nil && s.mem == m {
		return s
	}
	if s := th.cache[1]; s != nil && s.mem == m {
		return s
	}
	s := th.l.mem.get(m)
	th.cache[th.next], th.next = s, 1-th.next
	return s
}
