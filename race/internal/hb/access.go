package hb

import (
	"math/bits"
	"sync"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
)

// Access checks access a of t, made at site through call path path (nil
// without history), against the shadow of every granule it touches,
// records it there, and applies what it synchronizes. b is the access
// as Begin found it, one that needs checking, or nil for Access to find
// it (and to return at once where Begin would have returned false). It
// takes no lock but the page lock of each granule in turn (see visit),
// so accesses of different pages proceed in parallel. When the runtime
// holds the engine's Sequence mutex of a's element, which is the page
// lock of the element's granules, the engine does not take it again
// (see pthread.sequenced).
func (p *Engine) Access(t *gpu.Thread, a *gpu.Access, b *Begun, site gpu.Site, path *shared.SiteSlot) {
	// Without b, Begin's steps are taken here, inline: a call to Begin
	// and its stores to a Begun cost the no-history path more than the
	// steps themselves.
	var th *pthread
	var first, last, seen uint64
	if b != nil && b.ro {
		p.readOnly(b.th, t, a, site, path)
		return
	}
	if b != nil {
		th, first, last, seen = b.th, b.first, b.last, b.seen
	} else {
		if th = p.thread(t); th == nil {
			return
		}
		if a.ReadOnly {
			p.readOnly(th, t, a, site, path)
			return
		}
		first, last = p.granules(a)
		if seen = th.seenKey(a, first, last); th.settled(seen, a) {
			return
		}
	}
	var ac access
	ac.th, ac.t, ac.a, ac.site = th, t, a, site
	th.record(&ac.x, a, site, path)
	ac.wide = ac.x.wide(a.Mem.Space)
	ac.releases = th.releases(&ac.x)
	if releasing(a) {
		ac.rv = th.now()
	}
	sh := th.shadowOf(a.Mem)
	if a.Sequenced && th.sequenced(t, p.self) { // Sequence(a.Mem, a.Index): the page lock of the element's first granule
		ac.headHeld = true
		if last > first {
			ac.held = p.pageLock(a.Mem, first>>pageBits)
		}
	}
	th.n.accesses++
	th.n.checks += last - first + 1
	for g := first; g <= last; g++ {
		p.visit(&ac, sh, g, g == first)
	}
	if ac.x.write && a.Mem.Space == gpu.GlobalSpace {
		p.checkViews(th, t, a, &ac.x)
	}
	if releasing(a) {
		th.c++
	}
	if seen != 0 {
		th.seen.note(seen, th.c)
	}
}

// A Begun is an access that Begin found to need checking: its thread,
// the granules it touches and its seen key (see seenKey). A caller with
// history begins a weak load before it finds its call path, which a
// read its thread settles alone never needs, and Access then finds none
// of them again.
type Begun struct {
	th          *pthread
	first, last uint64
	seen        uint64
	ro          bool // a load through a read-only view its launch has not registered
}

// Begin finds what b holds for access a of t and reports whether the
// access needs Access: not when t is of no launch the engine keeps, nor
// for a weak read its thread settles alone (see seen.go), which it
// counts as a check and a repeat.
func (p *Engine) Begin(t *gpu.Thread, a *gpu.Access, b *Begun) bool {
	th := p.thread(t)
	if th == nil {
		return false
	}
	if a.ReadOnly {
		if th.l.ss.viewed(th.l, a.Mem, a.ViewLo, a.ViewLen) {
			th.n.accesses, th.n.checks, th.n.repeats = th.n.accesses+1, th.n.checks+1, th.n.repeats+1
			return false
		}
		b.th, b.ro = th, true
		return true
	}
	b.th = th
	b.first, b.last = p.granules(a)
	b.seen = th.seenKey(a, b.first, b.last)
	return !th.settled(b.seen, a)
}

// settled reports whether th settles access a, whose seen key is seen
// (0 if none, see seenKey), alone: a weak read of a granule it noted at
// its clock. A settled access is counted as a check and a repeat.
func (th *pthread) settled(seen uint64, a *gpu.Access) bool {
	if seen == 0 || a.Op != gpu.OpLoad || !th.seen.repeats(seen, th.c) {
		return false
	}
	th.n.accesses, th.n.checks, th.n.repeats = th.n.accesses+1, th.n.checks+1, th.n.repeats+1
	return true
}

// releasing reports whether a releases what its thread knows: a release
// or seq_cst store, or a read-modify-write of release, acq_rel or seq_cst
// order (a failed CAS too, which then writes nothing and releases
// nothing).
func releasing(a *gpu.Access) bool { return a.Order.Releases() && a.Op.Writes() }

// An access is one Access call on its way through the granules it
// touches: the thread, the access, its record and its class, and, for a
// release store, the view it releases.
type access struct {
	th       *pthread
	t        *gpu.Thread
	a        *gpu.Access
	site     gpu.Site
	x        prec
	wide     bool // x.wide of the access's space
	releases bool // x may set release state (see pthread.releases)
	rv       view
	headHeld bool        // the runtime holds the page lock of the first granule
	held     *sync.Mutex // with headHeld, that lock, for an access of several granules
}

// visit checks ac against granule g of sh and records it there, under
// the granule's page lock (see pageLock), unless the runtime holds it
// for the access (the head's always, the others' when they share it).
// On the granule its element starts at (head), a strong read first
// acquires from the release state there, and a write then sets it. The
// runtime sequences strong reads and every write of the element with the
// engine (see Sequence): the last write recorded at the head is the one
// a strong read read from. An access's granules are visited one at a
// time: what it learns (its acquire) is learned at the head, first, and
// what it releases reaches no other thread before the runtime's
// sequencing mutex is unlocked, after the last granule.
func (p *Engine) visit(ac *access, sh *shadow, g uint64, head bool) {
	pg := sh.page(g >> pageBits)
	if !head || !ac.headHeld {
		if mu := p.pageLock(ac.a.Mem, g>>pageBits); mu != ac.held {
			mu.Lock()
			defer mu.Unlock()
		}
	}
	ac.th.n.locks++
	pg.renew(sh)
	i := g & (1<<pageBits - 1)
	if !p.full && pg.locOf(i) == nil && pg.cells[i].quick(ac) {
		ac.th.n.firsts++
		return
	}
	loc := pg.loc(i, ac.a.Mem.Space, ac.th.blockKeys())
	if head && ac.a.Op.Reads() && ac.x.strong() {
		ac.th.acquireFrom(loc, ac.a, ac.site)
		if releasing(ac.a) && ac.a.Order.Acquires() {
			// An acq_rel or seq_cst read-modify-write is one operation:
			// what its read acquired happens before its write, whose
			// release carries it.
			ac.rv = ac.th.now()
		}
	}
	p.check(ac.th, ac.t, loc, &ac.x, ac.a, pg.full)
	pg.note(loc)
	if head && ac.x.write {
		loc.written(ac.th, ac.a, ac.rv)
	}
}

// granules returns the first and last granule access a touches, by
// address in its space. A typed memory's granule is its element (see
// elemShift), whatever the engine's granule size; only untyped memory
// (dynamic shared memory) has the engine's. Granules of another size
// than the engine's carry a tag, one more than their shift, in the bits
// from elemTag up, so that they never meet the numbers of granules of
// another size in one shadow: addresses stay below 2^41.
func (p *Engine) granules(a *gpu.Access) (first, last uint64) {
	return p.granulesAt(a.Mem, a.Offset, int(a.Size))
}

// granulesAt returns the first and last granule of the size bytes at
// offset off of m, numbered as granules numbers them.
func (p *Engine) granulesAt(m *gpu.Memory, off uint64, size int) (first, last uint64) {
	at := m.Base + off
	s := p.elemShift(m)
	first, last = at>>s, (at+uint64(max(size, 1))-1)>>s
	if s != p.shift {
		tag := uint64(s+1) << elemTag
		first, last = first|tag, last|tag
	}
	return first, last
}

// elemShift returns log2 of the bytes of a granule of m: its element's
// size if m is typed, the engine's granule size if not. Every access of
// a typed memory is one whole element, aligned to its size, so two
// accesses overlap exactly when they are of one element: a granule
// narrower than the element (a float64 under 4-byte granules) would only
// have each access checked twice, with the same verdict, and could not
// be settled by its thread's memo of same-epoch reads (see seenKey); a
// wider one would have neighbours share an entry. A dynamic shared
// memory's views of several types alias its bytes, so it keeps the
// engine's granules (see shared.Shift).
func (p *Engine) elemShift(m *gpu.Memory) uint {
	if m.Untyped() || m.ElemSize <= 0 {
		return p.shift
	}
	return uint(bits.TrailingZeros(uint(m.ElemSize)))
}

// elemTag is the lowest bit of the tag of the granule numbers of a
// memory whose granules are not of the engine's size (see granules).
const elemTag = 56

// shadowOf returns the shadow of the memory m: the cohort's for global
// memory of m's device, the thread's block's for shared memory (a thread
// reaches only its own block's).
func (th *pthread) shadowOf(m *gpu.Memory) *shadow {
	if m.Space == gpu.SharedSpace {
		if m.Block == th.l.local(th.place.Block) {
			return th.blk.shared
		}
		if blk := th.l.foreignShared(m.Block); blk != nil {
			return blk.shared
		}
		return th.l.p.newShadow() // a block that is gone: no thread shares it
	}
	if sh := th.l.glob.Load(); sh != nil && m.DeviceID == th.l.dev {
		return sh
	}
	return th.l.globalShadow(m.DeviceID)
}

// globalShadow returns the cohort's shadow of device dev's global
// memory, making it on first touch, and keeps it as the launch's own
// when dev is the launch's device. It takes the engine's mutex: only a
// launch's first accesses, before one of them has kept the shadow, come
// here.
func (l *plaunch) globalShadow(dev uint64) *shadow {
	sh := l.p.deviceShadow(l.ss, dev)
	if dev == l.dev {
		l.glob.Store(sh)
	}
	return sh
}

// deviceShadow returns the shadow of device dev's global memory in
// cohort ss, making it on first touch.
func (p *Engine) deviceShadow(ss *cohort, dev uint64) *shadow {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range ss.shadows() {
		if d.dev == dev {
			return d.sh
		}
	}
	sh := p.reused(dev)
	if sh == nil {
		sh = p.newShadow()
	}
	ss.addShadow(dev, sh)
	return sh
}
