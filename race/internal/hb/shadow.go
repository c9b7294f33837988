package hb

import (
	"sync"
	"sync/atomic"
	"weak"
)

// pageBits is log2 of the granules a shadow page covers. Pages are made
// on first touch, so the shadow grows with the memory a launch touches.
const pageBits = 4

// regionGap is how far beyond a region, in pages, a touch grows the
// region to reach it rather than starting a new one.
const regionGap = 1024

// regionMin is the pages a new region has room for: small, since a
// block's shared memory has a shadow of its own.
const regionMin = 64

// A shadow is the exact mode's metadata of one address space (a device's
// global memory, or one block's shared memory): a page table from granule
// number (byte address over the granule size) to pages of cells. The
// table is a few dense regions of page pointers, one per run of touched
// addresses, so finding a page costs an atomic load and an index, not a
// map lookup; a region grows by doubling when a touch lands beside it.
//
// Pages and regions are only ever added, under mu; readers load them with
// no lock. Each page guards its cells with its own mutex (see page).
//
// A shadow of global memory may serve several cohorts one after another
// (see reuse.go): gen numbers the cohort it serves now, and a page whose
// cells belong to an earlier one is emptied at its first visit in this
// one (see page.renew).
type shadow struct {
	mu      sync.Mutex                // orders the making of pages and regions
	regs    atomic.Pointer[[]*region] // published copy-on-write, under mu
	pages   int64                     // pages made, under mu
	counted bool                      // its pages are counted in t, under mu
	t       *totals                   // counts the bytes of the pages made
	// gen is set, under the engine's mu, before the shadow is published
	// to the cohort it serves, and not changed while that cohort runs.
	gen uint64
	// touched counts the pages made or renewed for generation gen: the
	// shadow of the memory the cohort touched (see keeps).
	touched atomic.Int64
	peak    int64 // the pages recent generations touched, under mu (see keeps)
	// self is a weak pointer to the shadow, made the first time it is
	// kept, under the engine's mu, and used each time after (see keepSpare).
	self weak.Pointer[shadow]
}

// A region is a dense run of the page table, from page number lo on.
// Storing a page into pages synchronizes before any load that returns it.
type region struct {
	lo    uint64
	pages []atomic.Pointer[page]
}

// A page is the shadow of 1<<pageBits consecutive granules. Its page
// lock (see Engine.pageLock) guards every cell: whoever checks or records
// an access of one of its granules holds it, so a page's accesses are
// applied in one total order and an unlock synchronizes before the next
// lock of the same page.
type page struct {
	// full holds the cells' full states, once one of them has one (see
	// cell). It is the page's only pointer, and its first word, so that
	// the collector scans one word of a page.
	full  *fullStates
	gen   uint64 // the shadow generation its cells belong to, under the page lock
	cells [1 << pageBits]cell
}

// fullStates is a page's table of its cells' full states, made with the
// first of them.
type fullStates struct {
	locs [1 << pageBits]*ploc
	// crowded says a full state of the page outgrew its list's first room
	// (see ploc.crowded): the page's next ones are made roomy (see
	// roomyPloc).
	crowded bool
	spare   *spares // full states and sets of earlier generations (see recycle)
}

// renew empties the page's cells if they belong to an earlier generation
// of sh than the current one, keeping their full states as spares (see
// recycle), and counts the page touched in this one.
// Preconditions: the page lock held.
func (pg *page) renew(sh *shadow) {
	if pg.gen != sh.gen {
		pg.cells = [1 << pageBits]cell{}
		if pg.full != nil {
			pg.full.recycle()
		}
		pg.gen = sh.gen
		sh.touched.Add(1)
	}
}

// cacheLine is the size of a cache line on the machines the engine runs
// on.
const cacheLine = 64

// page returns page number k, making it (and the directory room for it)
// on first touch.
func (s *shadow) page(k uint64) *page {
	if pg := s.find(k); pg != nil {
		return pg
	}
	return s.make(k)
}

// find returns page k if it has been made and published, else nil.
func (s *shadow) find(k uint64) *page {
	regs := s.regs.Load()
	if regs == nil {
		return nil
	}
	for _, r := range *regs {
		if i := k - r.lo; i < uint64(len(r.pages)) {
			return r.pages[i].Load()
		}
	}
	return nil
}

// groupBits is log2 of the pages make makes at once where a page's
// neighbour is made already: the group of consecutive pages whose
// numbers agree but in their low groupBits bits. A kernel that sweeps
// its memory touches the neighbours of a page next, so making them
// together takes mu and allocates once per group, not per page; a lone
// touch, whose neighbours are not made, makes its page alone, so the
// shadow of scattered touches does not grow by groups.
const groupBits = 4

// make returns page k, making it under mu if no one has: with the rest
// of its group when the page beside it on either side is made.
func (s *shadow) make(k uint64) *page {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.regionFor(k)
	i := k - r.lo
	if pg := r.pages[i].Load(); pg != nil {
		return pg
	}
	lo, hi := i, i+1
	if r.made(i-1) || r.made(i+1) {
		lo = max(k&^(1<<groupBits-1), r.lo) - r.lo
		hi = min(k|(1<<groupBits-1)+1-r.lo, uint64(len(r.pages)))
	}
	s.makePages(r, lo, hi)
	return r.pages[i].Load()
}

// made reports whether r's page at index i is made; false if i is
// outside r.
func (r *region) made(i uint64) bool {
	return i < uint64(len(r.pages)) && r.pages[i].Load() != nil
}

// makePages makes, in one allocation, r's pages at indices lo to hi-1
// that no one has made, and publishes them. Preconditions: s.mu held.
func (s *shadow) makePages(r *region, lo, hi uint64) {
	n := 0
	for i := lo; i < hi; i++ {
		if !r.made(i) {
			n++
		}
	}
	pgs := make([]page, n)
	for i := lo; i < hi; i++ {
		if !r.made(i) {
			pg := &pgs[len(pgs)-n]
			pg.gen, n = s.gen, n-1
			r.pages[i].Store(pg)
		}
	}
	s.made(int64(len(pgs)))
}

// made counts n new pages of the shadow.
func (s *shadow) made(n int64) {
	s.pages += n
	s.touched.Add(n)
	if s.t != nil { // a shadow made outside an engine counts nothing
		s.t.made.Add(uint64(n))
		if s.counted {
			s.t.grow(pageBytes * n)
		}
	}
}

// regionFor returns the region that holds page k. If none does, the
// nearest region grows (doubling) to reach it, or a new one starts there
// if none is near; a grown region absorbs every region it overlaps, so
// each page has one slot. Preconditions: s.mu held.
func (s *shadow) regionFor(k uint64) *region {
	var regs []*region
	if p := s.regs.Load(); p != nil {
		regs = *p
	}
	for _, r := range regs {
		if k-r.lo < uint64(len(r.pages)) {
			return r
		}
	}
	lo, hi := k, k+regionMin
	for _, r := range regs {
		if r.near(k) {
			lo, hi = r.reach(k)
			break
		}
	}
	lo, hi = cover(regs, lo, hi)
	out := &region{lo: lo, pages: make([]atomic.Pointer[page], hi-lo)}
	keep := make([]*region, 0, len(regs)+1)
	for _, r := range regs {
		if r.lo >= lo && r.lo < hi {
			out.absorb(r)
		} else {
			keep = append(keep, r)
		}
	}
	keep = append(keep, out)
	s.regs.Store(&keep)
	return out
}

// near reports whether page k lies close enough to r that r should grow
// to reach it.
func (r *region) near(k uint64) bool {
	n := uint64(len(r.pages))
	return k+regionGap+n >= r.lo && k < r.lo+2*n+regionGap
}

// reach returns the span of pages that holds r and page k, grown toward
// k by at least r's size (doubling it) where there is room: below r down
// to page 0 at most, above r without bound. Growing away from k would
// not do: pages touched in descending order near page 0 would then double
// the region upward at each one.
func (r *region) reach(k uint64) (lo, hi uint64) {
	n := uint64(len(r.pages))
	if k < r.lo {
		return r.lo - min(max(r.lo-k, n), r.lo), r.lo + n
	}
	return r.lo, r.lo + max(k+1-r.lo, 2*n)
}

// cover widens the span [lo, hi) until every region of regs lies wholly
// inside it or wholly outside.
func cover(regs []*region, lo, hi uint64) (uint64, uint64) {
	for changed := true; changed; {
		changed = false
		for _, r := range regs {
			end := r.lo + uint64(len(r.pages))
			if r.lo < hi && lo < end && (r.lo < lo || end > hi) {
				lo, hi, changed = min(lo, r.lo), max(hi, end), true
			}
		}
	}
	return lo, hi
}

// absorb copies the pages of r, which lies inside out's span, into out.
// The copy is exact because every page is stored under the shadow's
// mutex, which the caller holds.
func (out *region) absorb(r *region) {
	for i := range r.pages {
		out.pages[r.lo-out.lo+uint64(i)].Store(r.pages[i].Load())
	}
}
