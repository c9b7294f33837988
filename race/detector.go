package race

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// A Detector is a [gpu.Observer] that checks every access of the launches
// it observes for scoped races. Checks run inline on the goroutine of the
// accessing thread, each under the lock of the one metadata entry it
// touches, so threads check in parallel (unless Options.Central ships them
// to one goroutine). A Detector may observe several launches, one after
// another or at once; each launch gets its own metadata, and reports
// accumulate until [Detector.Reset].
type Detector struct {
	opt    Options
	shift  uint         // log2 of opt.Granularity
	paths  bool         // accesses carry call paths: History or Central
	bytes  atomic.Int64 // metadata bytes now allocated
	peak   atomic.Int64 // most metadata bytes allocated at once
	totals totals       // counters of the blocks that ended

	// stripes are LockStriped's mutexes, shared by the detector's
	// launches: allocating 64 KiB per launch was most of a short launch.
	stripes    *stripes
	sites      shared.Sites // the kernel sites of call paths, for history
	pages      sync.Pool    // spare metadata pages, of 1<<pageBits entries
	firstPages sync.Pool    // spare pages of first-record slots, zeroed (see first.go)
	dens       densities    // which memories start with first records (density.go)
	blocks     sync.Pool    // spare block states, of ended launches

	// launches maps the running launches' grids to their *launch. A
	// sync.Map finds one without a lock, and adding one copies nothing.
	launches sync.Map
	// last is the launch launchOf found last: most threads look up the
	// one launch running, and the map's lookup hashes an interface.
	last atomic.Pointer[launch]
	sink shared.Sink   // the races found, and HaltOnFirst's halt
	xl   crossLaunches // orders launches that overlap (crosslaunch.go)
	pre  *precise      // with Options.Precise, the mode that checks instead (precise.go)
}

// New returns a detector configured by opt.
func New(opt Options) *Detector {
	opt = opt.withDefaults()
	d := &Detector{opt: opt, shift: uint(bits.TrailingZeros(uint(opt.Granularity))), paths: opt.History || opt.Central}
	d.sink.Init(opt.MaxReports, haltWith(opt))
	if opt.Lock == LockStriped {
		d.stripes = new(stripes)
	}
	d.sites.Stacks = opt.History
	if opt.Precise {
		d.pre = newPrecise(d)
	}
	return d
}

// preciseThreads is the most threads a launch may have in precise mode:
// its epochs name a thread by a signed 32-bit id, and its read sets key
// two classes of access per thread in one (see setKey).
const preciseThreads = 1 << 30

// LaunchStart implements [gpu.Observer]: it starts the launch with clean
// metadata. In precise mode it refuses a launch of more than
// preciseThreads threads with a panic, which the runtime returns as the
// launch's error; the default mode takes any grid the runtime does.
func (d *Detector) LaunchStart(g *gpu.Grid) {
	if n := int64(g.Blocks) * int64(g.BlockSize); d.pre != nil && n > preciseThreads {
		panic(fmt.Sprintf("race: launch %q has %d threads (%d blocks of %d); precise mode names threads in 31 bits, two keys each, and accepts at most %d", g.Name, n, g.Blocks, g.BlockSize, preciseThreads))
	}
	if d.pre != nil {
		d.pre.launchStart(g)
		return
	}
	l := newLaunch(d, g)
	if d.opt.Central {
		l.central = startCentral(d)
	}
	d.startCross(l)
	d.launches.Store(g, l)
}

// LaunchEnd implements [gpu.Observer]: it frees the launch's metadata.
func (d *Detector) LaunchEnd(g *gpu.Grid, _ error) {
	if d.pre != nil {
		d.pre.launchEnd(g)
		return
	}
	v, ok := d.launches.LoadAndDelete(g)
	if !ok {
		return
	}
	l := v.(*launch)
	d.last.CompareAndSwap(l, nil)
	d.endCross(l)
	if l.central != nil {
		l.central.stop()
	}
	l.mem.free()
	l.recycle()
}

// BlockStart implements [gpu.Observer].
func (d *Detector) BlockStart(g *gpu.Grid, b int) {
	if d.pre != nil {
		d.pre.blockStart(g, b)
		return
	}
	d.launchOf(g).start(b)
}

// BlockEnd implements [gpu.Observer]: the block's shared memories die.
func (d *Detector) BlockEnd(g *gpu.Grid, b int) {
	if d.pre != nil {
		d.pre.blockEnd(g, b)
		return
	}
	l := d.launchOf(g)
	if l.central != nil {
		l.central.send(event{kind: evBlockEnd, l: l, block: b})
		return
	}
	d.endBlock(l, b)
}

// endBlock adds the block's counters to the totals, frees its shared
// memories' metadata and recycles its state (see launch.end).
func (d *Detector) endBlock(l *launch, b int) {
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
func (d *Detector) launchOf(g *gpu.Grid) *launch {
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

// Access implements [gpu.Observer]: it checks a against each granule's
// metadata and records it there.
func (d *Detector) Access(t *gpu.Thread, a *gpu.Access) {
	if d.sink.Halted() {
		d.sink.Raise(t)
		return
	}
	if d.pre != nil {
		var site gpu.Site
		if d.paths {
			site, _ = d.sites.Of(t)
		}
		d.pre.access(t, a, site)
		return
	}
	th := d.threadOf(t)
	// The runtime reports a release store before its value reaches
	// memory: count its fence now, before any thread can see the value.
	central := th.l.central != nil
	th.release(a, central)
	var site gpu.Site
	var path *shared.SiteSlot // with history, the access's call path
	if d.paths {
		site, path = d.sites.Of(t)
	}
	if a.Mem.Space == gpu.GlobalSpace && th.l.cross.Load() {
		d.checkCross(th, t, a, site, path)
	}
	if c := th.l.central; c != nil {
		c.send(event{kind: evAccess, th: th, a: *a, site: site, path: path, seq: th.seq.Load()})
		return
	}
	d.access(th, t, a, site, path, nil)
}

// release counts the fence a release access makes. A release store is PTX's release pattern, a fence of
// its scope then a relaxed store: it publishes what the thread wrote
// before it to every thread its scope covers, exactly as a fence does in
// the checks. A release of too narrow a scope is then a missing fence on
// the data; an acquire of too narrow a scope fails the atomic scope check
// on the flag itself.
// With the central checker it is marked apart, in rel (see central.go).
func (th *thread) release(a *gpu.Access, central bool) {
	if a.Order != gpu.Release {
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
func (d *Detector) access(th *thread, t *gpu.Thread, a *gpu.Access, site gpu.Site, path *shared.SiteSlot, seq *uint32) {
	th.n.accesses++
	first, last := a.Offset>>d.shift, (a.Offset+uint64(max(a.Size, 1))-1)>>d.shift
	if a.Op == gpu.OpCAS || a.Op == gpu.OpExch || a.Op == gpu.OpStore && a.Order != gpu.Weak {
		th.lockAccess(*a, first)
	}
	s := th.shadowOf(a.Mem)
	hasEntry := !s.firsts // the granules are known to have entries
	if first == last && seq == nil {
		done, e := s.settles(th, a, first, path)
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
		if k, f := d.checkEntry(th, s, g, hasEntry, &c, st, key, path); k != 0 {
			d.found(th, t, a, &c, path, &f)
		}
	}
}

// checkEntry checks c against the entry of s's granule g, under the
// entry's lock, and records it there; unless hasEntry says the granule
// has its entry already, a first record in its slot is applied first.
//
// An atomic store is an exchange on amd64, the dearest step of a check,
// so a check makes two: the lock and the unlock that stores the stamp.
// The call path and the zeroed key around its change matter only when
// paths are recorded (history, or the central checker); otherwise the
// path is always nil, and the key is stored only when it changes.
func (d *Detector) checkEntry(th *thread, s *shadow, g uint64, hasEntry bool, c *access, st stamp, key uint64, path *shared.SiteSlot) (Kind, finding) {
	e, x := s.at(g)
	lk := &th.l.lk
	lk.lock(th, e, x)
	if !hasEntry {
		th.l.expand(s, g, e, x)
	}
	if d.paths {
		e.ckey.Store(0) // a reader matching the key must see its path
		x.path.Store(path)
	}
	var m meta
	s.load(g, e, &m, &th.l.sets, c.store)
	before, locks := m.flags, e.locks
	var f finding
	at := path // the slot of c's site, which the entry keeps with history
	if at == nil && d.paths && !c.site.IsZero() {
		at = d.sites.BareSlot(c.site)
	}
	k := m.check(c, at, x, &f)
	s.save(g, e, &m, &th.l.sets)
	if next := m.keyAfter(key, c, k, before, e.locks == locks); next != e.ckey.Load() {
		e.ckey.Store(next)
	}
	lk.unlock(e, x, st)
	th.n.checks++
	return k, f
}

// Fence implements [gpu.Observer]: it counts the fence and activates the
// locks it validates.
func (d *Detector) Fence(t *gpu.Thread, s scope.Scope) {
	if d.pre != nil {
		d.pre.fence(t, s)
		return
	}
	th := d.threadOf(t)
	if c := th.l.central; c != nil {
		_, n := th.number(s)
		c.send(event{kind: evFence, th: th, scope: s, seq: n})
		return
	}
	th.fence(s)
	th.fenceLocks(s)
}

// Sync implements [gpu.Observer]: it advances the epoch of the threads that
// met. It runs while every other participant is held in the barrier, so
// the participants' later accesses see the new epoch.
func (d *Detector) Sync(t *gpu.Thread, s gpu.Sync) {
	if d.pre != nil {
		d.pre.sync(t, s)
		return
	}
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
func (d *Detector) MetadataBytes() int64 { return d.bytes.Load() }

func (d *Detector) notePeak() {
	b := d.bytes.Load()
	for p := d.peak.Load(); b > p && !d.peak.CompareAndSwap(p, b); p = d.peak.Load() {
	}
}
