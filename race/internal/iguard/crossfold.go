package iguard

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/report"
)

// Folding a launch's metadata into the cross-launch table. A launch that
// runs alone records nothing in the table (see crosslaunch.go), so when a
// second launch starts beside it, what it did before is only in its own
// metadata: the last writer and the last readers of each granule it
// touched. When such a launch (late set) ends, its threads have stopped,
// so its metadata no longer changes and is read without locks: each of
// its global granules' records is checked against the other launches'
// records in the table, as an access of the launch would be, and kept
// in a cell the table leaves empty, for the overlapping launches still
// running. So no access of the first launch goes unchecked against a
// launch that overlapped it, whenever the second started; a race so
// found is reported when the first launch ends, without the thread that
// made it, and without its site unless the detector keeps history.
//
// A launch that ran alone and never overlapped another folds nothing,
// so launches the host runs one after another pay nothing for it.

// foldCross folds l's global metadata into its table if l ran alone
// before it overlapped another launch. It runs at l's end, after its
// checks stopped and before its metadata is freed.
func (d *Engine) foldCross(l *launch) {
	if !l.cross.Load() || !l.late { // the load of cross orders the read of late
		return
	}
	for _, s := range l.mem.all() {
		if s.mem.Space == gpu.GlobalSpace {
			d.foldMem(l, s)
		}
	}
}

// foldMem folds the records of every granule of s, one of l's memories.
func (d *Engine) foldMem(l *launch, s *shadow) {
	cells := l.cellsOf(s.mem)
	for g := range s.n {
		for _, f := range l.recordsOf(s, g) {
			d.foldRecord(l, s.mem, g, &cells[g], f)
		}
	}
}

// A folded is one record of a granule, with its site when known.
type folded struct {
	rec   record
	site  gpu.Site
	stack []gpu.Site
}

// recordsOf returns the records s keeps of granule g: its first, or its
// entry's writer and readers. Preconditions: l's threads have stopped.
func (l *launch) recordsOf(s *shadow, g uint64) []folded {
	if p := s.pages[g>>pageBits].f.Load(); p != nil {
		if v := p[g&(1<<pageBits-1)].Load(); v != 0 && v != expanded {
			at := l.d.sites.Slot(s.lay.handle(v))
			return []folded{{rec: s.lay.unpack(v).rec, site: at.Site(), stack: at.Stack()}}
		}
	}
	p := s.pages[g>>pageBits].e.Load()
	if p == nil {
		return nil
	}
	i := g & (1<<pageBits - 1)
	var x *extra
	if p.x != nil {
		x = &p.x[i]
	}
	var m meta
	s.load(g, &p.e[i], &m, &l.sets, true)
	return m.folded(x)
}

// folded returns m's records that hold an access, with their sites from
// x, which may be nil.
func (m *meta) folded(x *extra) []folded {
	var out []folded
	for _, r := range []*record{&m.w, &m.r, &m.o} {
		if r.tid == 0 || r == &m.w && m.flags&fWriter == 0 {
			continue
		}
		sl := m.siteOf(r, x)
		out = append(out, folded{rec: *r, site: sl.Site(), stack: sl.Stack()})
	}
	return out
}

// foldRecord checks f, a record of l's granule g of m, against the
// other launches' records in cell c, and keeps it in c where c has no
// record of its kind.
func (d *Engine) foldRecord(l *launch, m *gpu.Memory, g uint64, c *crossCell, f folded) {
	if c.holds(l.seq, f.rec) {
		return // made after the overlap began, and checked then
	}
	me := l.foldSide(f)
	writes := f.rec.op.Writes()
	d.foldPair(l, m, g, me, c.w.Load())
	if writes {
		d.foldPair(l, m, g, me, c.r.Load())
		d.foldPair(l, m, g, me, c.o.Load())
		c.w.CompareAndSwap(nil, me)
		return
	}
	c.r.CompareAndSwap(nil, me)
}

// holds reports whether c keeps an access of launch seq by r's thread
// with r's op. Such an access was checked against the table when made,
// against every access of another launch made before it; those made
// after were checked against it. r, if it is another access, is then
// one of the same thread and op, whose races with those accesses are
// the same races.
func (c *crossCell) holds(seq uint64, r record) bool {
	for _, p := range []*crossSide{c.w.Load(), c.r.Load(), c.o.Load()} {
		if p != nil && p.seq == seq && p.side.GlobalID == r.gid() && p.side.Op == r.op {
			return true
		}
	}
	return false
}

// foldPair reports a race between me, a folded record of l's granule g
// of m, and p, a record of another launch, as crossPair does.
func (d *Engine) foldPair(l *launch, m *gpu.Memory, g uint64, me, p *crossSide) {
	k := l.crossKind(me, p)
	if k == 0 || d.sink.Known(k, me.side.Site, p.side.Site) || d.sink.Known(k, p.side.Site, me.side.Site) {
		return
	}
	index := int(g * d.granuleBytes(m) / uint64(max(m.ElemSize, 1)))
	d.sink.Keep(crossReport(k, l, m, index, me.side, p), nil)
}

// foldSide returns the table's side for f, a record of l.
func (l *launch) foldSide(f folded) *crossSide {
	g := l.g
	gid := f.rec.gid()
	b, r := gid/g.BlockSize, gid%g.BlockSize
	return &crossSide{seq: l.seq, launch: g.Name, strong: f.rec.strong, side: report.Side{
		Block: shared.DimIndex(g.GridDim, b), Thread: shared.DimIndex(g.BlockDim, r), BlockID: b, GlobalID: gid,
		Warp: r / g.WarpSize, Lane: r % g.WarpSize, Op: f.rec.op, Order: f.rec.order, Scope: f.rec.scope, Site: f.site, Stack: f.stack,
	}}
}
