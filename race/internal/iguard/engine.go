package iguard

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// An Engine checks every access of the launches it observes for scoped
// races by iGUARD's rules; package race's Detector drives it, through the
// methods of [gpu.Observer] (Access taking the site the Detector found).
// Checks run inline on the goroutine of the accessing thread, each under
// the lock of the one metadata entry it touches, so threads check in
// parallel (unless Config.Central ships them to one goroutine). An Engine
// may observe several launches, one after another or at once; each
// launch gets its own metadata. Races go to the sink the Detector gave.
type Engine struct {
	opt    Config
	shift  uint         // log2 of opt.Granularity
	paths  bool         // accesses carry call paths: History or Central
	bytes  atomic.Int64 // metadata bytes now allocated
	peak   atomic.Int64 // most metadata bytes allocated at once
	totals totals       // counters of the blocks that ended

	// stripes are LockStriped's mutexes, shared by the detector's
	// launches: allocating 64 KiB per launch was most of a short launch.
	stripes    *stripes
	sites      *shared.Sites // the kernel sites of call paths, the Detector's
	pages      sync.Pool     // spare metadata pages, of 1<<pageBits entries
	firstPages sync.Pool     // spare pages of first-record slots, zeroed (see first.go)
	dens       densities     // which memories start with first records (density.go)
	blocks     sync.Pool     // spare block states, of ended launches

	// launches maps the running launches' grids to their *launch. A
	// sync.Map finds one without a lock, and adding one copies nothing.
	launches sync.Map
	// last is the launch launchOf found last: most threads look up the
	// one launch running, and the map's lookup hashes an interface.
	last atomic.Pointer[launch]
	sink *shared.Sink  // the races found, and the halt at the first: the Detector's
	xl   crossLaunches // orders launches that overlap (crosslaunch.go)
}

// New returns an engine configured by opt, which finds sites through
// sites and keeps races in sink.
func New(opt Config, sites *shared.Sites, sink *shared.Sink) *Engine {
	d := &Engine{opt: opt, shift: uint(bits.TrailingZeros(uint(opt.Granularity))), paths: opt.History || opt.Central,
		sites: sites, sink: sink}
	if opt.Lock == LockStriped {
		d.stripes = new(stripes)
	}
	return d
}

// LaunchStart starts launch g with clean metadata.
func (d *Engine) LaunchStart(g *gpu.Grid) {
	l := newLaunch(d, g)
	if d.opt.Central {
		l.central = startCentral(d)
	}
	d.startCross(l)
	d.launches.Store(g, l)
}

// LaunchEnd checks what launch g did before another launch overlapped
// it against the launches it overlapped (see crossfold.go), then frees
// its metadata.
func (d *Engine) LaunchEnd(g *gpu.Grid) {
	v, ok := d.launches.LoadAndDelete(g)
	if !ok {
		return
	}
	l := v.(*launch)
	d.last.CompareAndSwap(l, nil)
	if l.central != nil {
		l.central.stop()
	}
	d.foldCross(l) // while l's table lives: endCross may drop it
	d.endCross(l)
	l.mem.free()
	l.recycle()
}

// BlockStart sets up the state of block b of launch g.
func (d *Engine) BlockStart(g *gpu.Grid, b int) {
	d.launchOf(g).start(b)
}

// BlockEnd ends block b of launch g: its shared memories die.
func (d *Engine) BlockEnd(g *gpu.Grid, b int) {
	l := d.launchOf(g)
	if l.central != nil {
		l.central.send(event{kind: evBlockEnd, l: l, block: b})
		return
	}
	d.endBlock(l, b)
}

// endBlock adds the block's counters to the totals, frees its shared
// memories' metadata and recycles its state (see launch.end).
func (d *Engine) endBlock(l *launch, b int) {
	d.notePeak()
	blk := l.res.get(b)
	if blk == nil { // its start failed
		l.mem.freeBlock(b)
		return
	}
	var sum counters // one atomic add per counter per block, not per thread
	for i := range blk.threads {
		sum.add(&blk.threads[i].n)
	}
	d.totals.add(&sum)
	l.end(blk)
}

// launchOf returns g's running launch.
func (d *Engine) launchOf(g *gpu.Grid) *launch {
	if l := d.last.Load(); l != nil && l.g == g {
		return l
	}
	v, _ := d.launches.Load(g)
	l, _ := v.(*launch)
	if l != nil {
		d.last.Store(l)
	}
	return l
}

// Access checks access a of t against each granule's metadata and
// records it there. With history or the central checker, site is the
// access's kernel line and path its call path's slot in the site cache
// (nil when not cached), which the Detector looked up on t's own frames;
// otherwise both are zero, and a race looks its site up when found.
func (d *Engine) Access(t *gpu.Thread, a *gpu.Access, site gpu.Site, path *shared.SiteSlot) {
	th := d.threadOf(t)
	// The runtime reports a release store before its value reaches
	// memory: count its fence now, before any thread can see the value.
	central := th.l.central != nil
	th.release(a, central)
	if a.Mem.Space == gpu.GlobalSpace && th.l.cross.Load() {
		d.checkCross(th, t, a, site, path)
	}
	if c := th.l.central; c != nil {
		c.send(event{kind: evAccess, th: th, a: *a, site: site, path: path, seq: th.seq.Load()})
	} else {
		d.access(th, t, a, site, path, nil)
	}
	if a.Op.IsRMW() && a.Order.Acquires() {
		d.fence(th, a.Scope)
	}
}

// release counts the fence a release access makes. A release store is PTX's release pattern, a fence of
// its scope then a relaxed store: it publishes what the thread wrote
// before it to every thread its scope covers, exactly as a fence does in
// the checks. A release of too narrow a scope is then a missing fence on
// the data; an acquire of too narrow a scope fails the atomic scope check
// on the flag itself.
// With the central checker it is marked apart, in rel (see central.go).
//
// A read-modify-write that releases (release, acq_rel or seq_cst) counts
// the same fence before it, the fence its order implies; one that
// acquires counts a fence after it (see Access), which activates a lock
// its CAS took, as a fence after a relaxed CAS does.
func (th *thread) release(a *gpu.Access, central bool) {
	if !a.Order.Releases() || !a.Op.Writes() {
		return
	}
	switch i, n := th.number(a.Scope); {
	case i < 0:
	case central:
		mark(&th.rel, i, n)
	default:
		mark(&th.last, i, n)
	}
}

// access checks a by th; t is th's gpu.Thread when the check runs on it,
// else nil. seq, when not nil, is th's fence seq at the access, taken by
// the accessing thread for the central checker.
func (d *Engine) access(th *thread, t *gpu.Thread, a *gpu.Access, site gpu.Site, path *shared.SiteSlot, seq *uint32) {
	th.n.accesses++
	first, last := d.granules(a)
	if a.Op == gpu.OpCAS || a.Op == gpu.OpExch || a.Op == gpu.OpStore && a.Order != gpu.Weak {
		th.lockAccess(*a, first)
	}
	s := th.shadowOf(a.Mem)
	at := d.siteSlot(site, path)
	hasEntry := !s.firsts // the granules are known to have entries
	if first == last && seq == nil {
		done, e := s.settles(th, a, first, path, at)
		if done {
			return // a first touch or a repeat, settled without filling a record
		}
		hasEntry = e
	}
	c := access{th: th}
	th.fill(&c.rec, a)
	if seq != nil {
		c.rec.seq = *seq
	}
	c.site = site
	c.store = a.Op.Writes()
	st := c.stamp()
	if first == last && seq != nil && s.repeats(first, st, path) {
		th.n.repeats++
		return // a repeat: checking it again would change nothing
	}
	c.locks = th.lockSet()
	var key uint64
	if !d.opt.NoCoalesce {
		key = coalesceKey(th, &c, first, last)
		if key != 0 && hasEntry && s.coalesces(first, key, path) {
			th.n.coalesced++
			return
		}
	}
	for g := first; g <= last; g++ {
		if k, f := d.checkEntry(th, s, g, hasEntry, &c, st, key, path, at); k != 0 {
			d.found(th, t, a, &c, path, &f)
		}
	}
}

// checkEntry checks c against the entry of s's granule g, under the
// entry's lock, and records it there, with at as its site's slot
// (history); unless hasEntry says the granule has its entry already, a
// first record in its slot is applied first.
//
// An atomic store is an exchange on amd64, the dearest step of a check,
// so a check makes two: the lock and the unlock that stores the stamp.
// The call path and the zeroed key around its change matter only when
// paths are recorded (history, or the central checker), and are stored
// only when the path changes; otherwise the path is always nil, and the
// key is stored only when it changes.
func (d *Engine) checkEntry(th *thread, s *shadow, g uint64, hasEntry bool, c *access, st stamp, key uint64, path, at *shared.SiteSlot) (kind.Kind, finding) {
	e, x := s.at(g)
	lk := &th.l.lk
	lk.lock(th, e, x)
	if !hasEntry {
		th.l.expand(s, g, e, x)
	}
	if d.paths && x.path.Load() != path {
		// A reader matching the key must see its path; an unchanged
		// path still belongs to the key of the last update, so only a
		// change pays the two atomic stores.
		e.ckey.Store(0)
		x.path.Store(path)
	}
	var m meta
	s.load(g, e, &m, &th.l.sets, c.store)
	before, locks := m.flags, e.locks
	var f finding
	k := m.check(c, at, x, &f)
	s.save(g, e, &m, &th.l.sets)
	if next := m.keyAfter(key, c, k, before, e.locks == locks); next != e.ckey.Load() {
		e.ckey.Store(next)
	}
	lk.unlock(e, x, st)
	th.n.checks++
	return k, f
}

// siteSlot returns the slot of the site of an access at site, with call
// path path: path itself, or when the path is not cached, with paths
// recorded, a bare slot of site; nil without paths or a site.
func (d *Engine) siteSlot(site gpu.Site, path *shared.SiteSlot) *shared.SiteSlot {
	if path == nil && d.paths && !site.IsZero() {
		return d.sites.BareSlot(site)
	}
	return path
}

// Fence counts a fence of scope s by t and activates the locks it
// validates. iGUARD's rules know one kind of fence: a fence.sc (o is
// gpu.SeqCst) counts as a fence.acq_rel, so the total order of fence.sc
// operations orders nothing here.
func (d *Engine) Fence(t *gpu.Thread, s scope.Scope, _ gpu.Order) {
	d.fence(d.threadOf(t), s)
}

// fence counts a fence of scope s by th and activates the locks it
// validates.
func (d *Engine) fence(th *thread, s scope.Scope) {
	if c := th.l.central; c != nil {
		_, n := th.number(s)
		c.send(event{kind: evFence, th: th, scope: s, seq: n})
		return
	}
	th.fence(s)
	th.fenceLocks(s)
}

// Sync advances the epoch of the threads that met at collective s, which
// t completed. It runs while every other participant is held in the
// barrier, so the participants' later accesses see the new epoch.
func (d *Engine) Sync(t *gpu.Thread, s gpu.Sync) {
	th := d.threadOf(t)
	if c := th.l.central; c != nil {
		c.send(event{kind: evSync, th: th, sync: s})
		return
	}
	th.sync(s)
}

// sync applies collective s that th completed last.
func (th *thread) sync(s gpu.Sync) {
	switch s.Kind {
	case gpu.SyncThreads:
		th.blk.bar.Add(1)
	case gpu.SyncWarp:
		th.w.sync(s.Mask)
	case gpu.SyncGrid:
		th.l.grid.Add(1)
	case gpu.SyncTile:
		th.blk.tileSync(s.First, s.Count)
	}
}

// MetadataBytes returns the bytes of memory metadata allocated now.
func (d *Engine) MetadataBytes() int64 { return d.bytes.Load() }

// notePeak raises the peak of metadata bytes to the bytes allocated now.
func (d *Engine) notePeak() {
	b := d.bytes.Load()
	for p := d.peak.Load(); b > p && !d.peak.CompareAndSwap(p, b); p = d.peak.Load() {
	}
}

// granules returns the first and last granule of its memory access a
// touches: granules of 1<<shift bytes, or of the element size of a memory
// whose elements are narrower (shared.Shift).
func (d *Engine) granules(a *gpu.Access) (first, last uint64) {
	s := shared.Shift(a.Mem, d.shift)
	return a.Offset >> s, (a.Offset + uint64(max(a.Size, 1)) - 1) >> s
}

// granuleBytes returns the bytes one granule of m covers.
func (d *Engine) granuleBytes(m *gpu.Memory) uint64 {
	return 1 << shared.Shift(m, d.shift)
}
