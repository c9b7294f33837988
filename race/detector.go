package race

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Detector is a [gpu.Observer] that checks every access of the launches
// it observes for scoped races. Checks run inline on the goroutine of the
// accessing thread, each under the lock of the one metadata entry it
// touches, so threads check in parallel. A Detector may observe several
// launches, one after another or at once; each launch gets its own
// metadata, and reports accumulate until [Detector.Reset].
type Detector struct {
	opt    Options
	shift  uint         // log2 of opt.Granularity
	halted atomic.Bool  // HaltOnFirst fired: record nothing more
	bytes  atomic.Int64 // metadata bytes now allocated
	peak   atomic.Int64 // most metadata bytes allocated at once

	sites sites     // the kernel sites of call paths, for history
	pages sync.Pool // spare metadata pages, of 1<<pageBits entries

	mu       sync.Mutex // guards the fields below
	launches map[*gpu.Grid]*launch
	reports  reports
}

// New returns a detector configured by opt.
func New(opt Options) *Detector {
	opt = opt.withDefaults()
	return &Detector{opt: opt, shift: uint(bits.TrailingZeros(uint(opt.Granularity))), launches: make(map[*gpu.Grid]*launch), reports: newReports(opt.MaxReports)}
}

// LaunchStart implements [gpu.Observer]: it starts the launch with clean
// metadata.
func (d *Detector) LaunchStart(g *gpu.Grid) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.launches[g] = newLaunch(d, g)
}

// LaunchEnd implements [gpu.Observer]: it frees the launch's metadata.
func (d *Detector) LaunchEnd(g *gpu.Grid, _ error) {
	d.mu.Lock()
	l := d.launches[g]
	delete(d.launches, g)
	d.mu.Unlock()
	if l != nil {
		l.mem.free()
	}
}

// BlockStart implements [gpu.Observer].
func (d *Detector) BlockStart(g *gpu.Grid, b int) { d.launchOf(g).start(b) }

// BlockEnd implements [gpu.Observer]: the block's shared memories die.
func (d *Detector) BlockEnd(g *gpu.Grid, b int) {
	d.notePeak()
	d.launchOf(g).end(b)
}

func (d *Detector) launchOf(g *gpu.Grid) *launch {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.launches[g]
}

// Access implements [gpu.Observer]: it checks a against each granule's
// metadata and records it there.
func (d *Detector) Access(t *gpu.Thread, a gpu.Access) {
	if d.halted.Load() {
		return
	}
	th := d.threadOf(t)
	first, last := a.Offset>>d.shift, (a.Offset+uint64(max(a.Size, 1))-1)>>d.shift
	if a.Order == gpu.Release {
		// A release store is PTX's release pattern, a fence of its scope
		// then a relaxed store: it publishes what the thread wrote before
		// it to every thread its scope covers, exactly as a fence does
		// in the checks. A release of too narrow a scope is then a
		// missing fence on the data; an acquire of too narrow a scope
		// fails the atomic scope check on the flag itself.
		th.fence(a.Scope)
	}
	if a.Op == gpu.OpCAS || a.Op == gpu.OpExch || a.Op == gpu.OpStore && a.Order != gpu.Weak {
		th.lockAccess(a, first)
	}
	var c access
	th.fill(&c.rec, &a)
	c.store = a.Op.Writes()
	s := th.shadowOf(a.Mem)
	stamp := c.rec.stamp()
	var path *siteSlot // with history, the access's call path
	if d.opt.History {
		c.rec.site, path = d.sites.of(t)
	}
	if first == last && s.entry(first).repeats(stamp, path) {
		return // a repeat: checking it again would change nothing
	}
	c.locks = th.lockSet()
	var f finding
	for g := first; g <= last; g++ {
		e := s.entry(g)
		e.lock()
		e.path.Store(path)
		e.stamp.Store(stamp)
		k := e.check(&c, &f)
		e.unlock()
		if k != 0 {
			d.found(t, a, &c, &f)
		}
	}
}

// Fence implements [gpu.Observer]: it counts the fence and activates the
// locks it validates.
func (d *Detector) Fence(t *gpu.Thread, s scope.Scope) {
	th := d.threadOf(t)
	th.fence(s)
	th.fenceLocks(s)
}

// Sync implements [gpu.Observer]: it advances the epoch of the threads that
// met. It runs while every other participant is held in the barrier, so
// the participants' later accesses see the new epoch.
func (d *Detector) Sync(t *gpu.Thread, s gpu.Sync) {
	th := d.threadOf(t)
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

// Stats are a detector's counters.
type Stats struct {
	Reports       int   // distinct races kept
	Dropped       int   // distinct races past MaxReports
	MetadataBytes int64 // memory metadata allocated now
	PeakMetadata  int64 // the most metadata allocated at a block's end
}

// Stats returns the detector's counters.
func (d *Detector) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notePeak()
	return Stats{Reports: len(d.reports.list), Dropped: d.reports.dropped,
		MetadataBytes: d.bytes.Load(), PeakMetadata: d.peak.Load()}
}

// MetadataBytes returns the bytes of memory metadata allocated now.
func (d *Detector) MetadataBytes() int64 { return d.bytes.Load() }

func (d *Detector) notePeak() {
	b := d.bytes.Load()
	for p := d.peak.Load(); b > p && !d.peak.CompareAndSwap(p, b); p = d.peak.Load() {
	}
}
