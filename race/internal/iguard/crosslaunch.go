package iguard

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
	"github.com/warpguard/warpguard/scope"
)

// Concurrent launches. Each launch's metadata starts clean, since the
// end of a launch orders every access it made before anything the host
// does next. Two launches running at once on one device are not ordered
// at all: nothing but atomics of device scope or wider lets them share a
// word. So while launches of one detector overlap, their global accesses
// are also recorded in a table they share, a writer and two readers per
// granule, each naming its launch, and an access is checked there against
// the other launches' records.
//
// Launches are numbered as they start. Launch p is concurrent with a
// running launch l if p started after l, or was running when l started;
// any other p ended before l started, which orders it. A launch that runs
// alone records nothing in the table, so launches the host runs one after
// another pay nothing for it: recording starts, for every running launch,
// when a second launch starts while one runs. A running launch's accesses
// before that moment are only in its own metadata, which it folds into
// the table when it ends (crossfold.go); the accesses of both after it
// are checked against each other as they happen.
//
// The check treats fences as ordering nothing between launches, so a
// word handed from one running launch to another by a fence and a
// device-scope flag is reported; host order and device-scope atomics are
// the synchronization it knows.

// crossLaunches orders a detector's launches among themselves.
type crossLaunches struct {
	mu    sync.Mutex
	seq   uint64               // the last launch's number
	live  map[*launch]struct{} // the running launches
	table *crossTable          // shared by the running launches while they overlap
}

// A crossTable holds the global accesses of overlapping launches: a
// crossMem per memory.
type crossTable struct{ mems sync.Map }

// crossMem is a memory's cells, a granule each, in its table by shared.MemKey,
// so that memories of two devices never share cells.
type crossMem struct{ cells []crossCell }

// crossCell is a granule's last writer, last reader, and the last reader
// of a launch other than the last reader's.
type crossCell struct{ w, r, o atomic.Pointer[crossSide] }

// crossSide is one access in the table; it never changes once stored.
type crossSide struct {
	seq    uint64 // its launch's number
	launch string
	host   bool // a host access (host.go); launch names the host function
	side   report.Side
	strong bool
}

// startCross numbers l and, if it overlaps another launch, turns on the
// table for l and for every running launch. The store of o.cross comes
// after the store of o.xt, and a thread that loads cross as true reads xt
// after: the atomic store synchronizes before that load, so the thread
// sees the table.
func (d *Engine) startCross(l *launch) {
	x := &d.xl
	x.mu.Lock()
	defer x.mu.Unlock()
	x.seq++
	l.seq = x.seq
	for o := range x.live {
		l.before = append(l.before, o.seq)
	}
	if x.live == nil {
		x.live = map[*launch]struct{}{}
	}
	x.live[l] = struct{}{}
	if len(x.live) == 1 {
		return
	}
	if x.table == nil {
		x.table = new(crossTable)
	}
	for o := range x.live {
		if !o.cross.Load() {
			o.xt = x.table // published by the store of cross
			o.late = o != l
			o.cross.Store(true)
		}
	}
}

// endCross forgets l; with the last running launch, the table goes.
func (d *Engine) endCross(l *launch) {
	x := &d.xl
	x.mu.Lock()
	defer x.mu.Unlock()
	delete(x.live, l)
	if len(x.live) == 0 {
		x.table = nil
	}
}

// concurrent reports whether the launch numbered seq ran at once with l.
func (l *launch) concurrent(seq uint64) bool {
	return seq > l.seq || slices.Contains(l.before, seq)
}

// checkCross checks global access a of th against the other running
// launches' accesses to its granules, and records it. site is its site
// if known, and path the slot of its call path if cached.
func (d *Engine) checkCross(th *thread, t *gpu.Thread, a *gpu.Access, site gpu.Site, path *shared.SiteSlot) {
	cells := th.crossCells(a.Mem)
	me := th.crossSide(a, site, path.Stack())
	first, last := d.granules(a)
	for g := first; g <= last && g < uint64(len(cells)); g++ {
		c := &cells[g]
		d.crossPair(th, t, a, me, c.w.Load())
		if a.Op.Writes() {
			d.crossPair(th, t, a, me, c.r.Load())
			d.crossPair(th, t, a, me, c.o.Load())
			if c.w.Load() != me {
				c.w.Store(me)
			}
			continue
		}
		if r := c.r.Load(); r != me {
			if r != nil && r.seq != me.seq {
				c.o.Store(r)
			}
			c.r.Store(me)
		}
	}
}

// crossPair reports a race between access me and p, an access of another
// launch, if the launches overlapped and the pair is not two atomics of
// device scope or wider.
func (d *Engine) crossPair(th *thread, t *gpu.Thread, a *gpu.Access, me, p *crossSide) {
	k := th.l.crossKind(me, p)
	if k == 0 {
		return
	}
	cur := me.side
	if cur.Site.IsZero() && t != nil {
		var path *shared.SiteSlot
		cur.Site, path = d.sites.Of(t)
		cur.Stack = d.sites.StackOf(t, path)
	}
	if d.sink.Known(k, cur.Site, p.side.Site) {
		return
	}
	d.sink.Keep(crossReport(k, th.l, a.Mem, a.Index, cur, p), t)
}

// crossKind returns the kind of race between me, an access of l, and p,
// an access of another launch: 0 unless p is of a launch that ran at
// once with l and the pair is not two atomics of device scope or wider.
func (l *launch) crossKind(me, p *crossSide) kind.Kind {
	if p == nil || p.seq == me.seq || !l.concurrent(p.seq) {
		return 0
	}
	if p.strong && me.strong {
		if p.side.Scope.Includes(scope.Device) && me.side.Scope.Includes(scope.Device) {
			return 0
		}
		return kind.ScopedAtomic
	}
	return kind.MissingDeviceFence
}

// crossReport is the report of race k on element index of m between cur,
// an access of l, and p, an access of another launch.
func crossReport(k kind.Kind, l *launch, m *gpu.Memory, index int, cur report.Side, p *crossSide) report.Report {
	prev := p.side
	prev.Launch = p.launch
	if !p.host {
		cur.Launch = l.g.Name
	}
	ev := fmt.Sprintf("The launches %q and %q ran at once on one device, and nothing orders their accesses to this word: "+
		"only the host's order (one launch returning before the other starts) orders two launches, and only atomics of device scope or wider may share a word between them.",
		p.launch, l.g.Name)
	if p.host {
		ev = hostEvidence(p.launch, l.g.Name)
	}
	return report.Report{Kind: k, Launch: l.g.Name, Mem: m, Index: index, Current: cur, Previous: prev, Evidence: ev}
}

// crossCells returns m's cells in th's launch's table, remembering the
// last memory th used.
func (th *thread) crossCells(m *gpu.Memory) []crossCell {
	if th.xMem != m {
		th.xMem, th.xCells = m, th.l.cellsOf(m)
	}
	return th.xCells
}

// cellsOf returns m's cells in l's table, creating them on first use.
func (l *launch) cellsOf(m *gpu.Memory) []crossCell {
	t := l.xt
	k := shared.KeyOf(m)
	v, ok := t.mems.Load(k)
	if !ok {
		gb := l.d.granuleBytes(m)
		n := (uint64(m.Bytes()) + gb - 1) / gb
		v, _ = t.mems.LoadOrStore(k, &crossMem{cells: make([]crossCell, n)})
	}
	return v.(*crossMem).cells
}

// crossSide returns th's record of a, made at site with call stack
// stack, for the table, the last one again when it describes a as well.
func (th *thread) crossSide(a *gpu.Access, site gpu.Site, stack []gpu.Site) *crossSide {
	if s := th.xLast; s != nil && s.side.Op == a.Op && s.side.Order == a.Order && s.side.Scope == a.Scope && s.side.Site == site && sameStack(s.side.Stack, stack) {
		return s
	}
	g := th.l.g
	s := &crossSide{seq: th.l.seq, launch: g.Name, strong: isStrong(a), side: report.Side{
		Block: shared.DimIndex(g.GridDim, th.blk.id), Thread: shared.DimIndex(g.BlockDim, th.rank), BlockID: th.blk.id, GlobalID: th.gid,
		Warp: th.rank / th.w.n, Lane: th.lane, Op: a.Op, Order: a.Order, Scope: a.Scope, Site: site, Stack: stack,
	}}
	th.xLast = s
	return s
}

// sameStack reports whether a and b are one slot's stack: slots share
// their stacks' arrays, so identity stands in for equality.
func sameStack(a, b []gpu.Site) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
