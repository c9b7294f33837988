package hb

import (
	"fmt"
	"math"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// Read-only views. A load through a gpu.ReadOnly view of global memory
// comes with a promise: no element of the view is written while the
// launch runs. The engine checks the promise in place of the loads. A
// launch's first load through a view registers the view in the cohort
// (a roView) and looks in the shadow for a write to one of its elements
// that does not happen before the launch started; every write of global
// memory then looks, after recording itself, for a registered view that
// holds its element and whose launch had not ended when the writer's
// launch started (host order). Every later load through a registered
// view is settled with no shadow lookup and no lock. A read races with
// writes only, and a write that could race with a load through a view
// breaks its promise, so a race with such a load is reported, as a
// broken promise (kind.ReadOnlyWritten), whichever side comes first.
//
// The two sides meet as a race's do: a view is published (an atomic
// store) before its scan takes each page's lock, and a write is recorded
// under its page's lock before it loads the views; if the write's load
// misses the view, the view's scan finds the write.

// A roView is a read-only view a launch of the cohort reads through:
// elements lo to lo+n-1 of m, and its first load, for reports.
type roView struct {
	m     *gpu.Memory
	lo, n int
	l     *plaunch
	x     prec // the first load through the view
	at    int  // its element
}

// holds reports whether element i of memory m is in the view.
func (v *roView) holds(m *gpu.Memory, i int) bool {
	return v.m == m && i >= v.lo && i-v.lo < v.n
}

// views returns the cohort's registered read-only views.
func (ss *cohort) views() []roView {
	if vs := ss.ro.Load(); vs != nil {
		return *vs
	}
	return nil
}

// viewed reports whether launch l registered the view of elements lo to
// lo+n-1 of m.
func (ss *cohort) viewed(l *plaunch, m *gpu.Memory, lo, n int) bool {
	for i, vs := 0, ss.views(); i < len(vs); i++ {
		if v := &vs[i]; v.l == l && v.m == m && v.lo == lo && v.n == n {
			return true
		}
	}
	return false
}

// readOnly checks a, a load of th through a read-only view, made at
// site through call path path: it registers the view on the launch's
// first load through it, and checks the writes already made to it.
func (p *Engine) readOnly(th *pthread, t *gpu.Thread, a *gpu.Access, site gpu.Site, path *shared.SiteSlot) {
	th.n.accesses, th.n.checks, th.n.repeats = th.n.accesses+1, th.n.checks+1, th.n.repeats+1
	ss := th.l.ss
	if ss.viewed(th.l, a.Mem, a.ViewLo, a.ViewLen) {
		return
	}
	v := roView{m: a.Mem, lo: a.ViewLo, n: a.ViewLen, l: th.l, at: a.Index}
	th.record(&v.x, a, site, path)
	if !p.register(ss, &v) {
		return
	}
	if y, i := p.writeIn(th, &v); y != nil {
		p.reportView(th, t, a, &v.x, y, &v, i)
	}
}

// register publishes view v in the cohort, unless another thread of its
// launch did first, and reports whether it did.
func (p *Engine) register(ss *cohort, v *roView) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ss.viewed(v.l, v.m, v.lo, v.n) {
		return false
	}
	old := ss.views()
	vs := append(old[:len(old):len(old)], *v)
	ss.ro.Store(&vs)
	return true
}

// writeIn returns a write recorded in the cohort's shadow of one of view
// v's elements that does not happen before v's launch started, and its
// element; nil if none.
func (p *Engine) writeIn(th *pthread, v *roView) (*prec, int) {
	sh := th.shadowOf(v.m)
	size := v.m.ElemSize
	first, _ := p.granulesAt(v.m, uint64(v.lo*size), size)
	last := first + uint64(v.n) - 1
	for k := first >> pageBits; k <= last>>pageBits && v.n > 0; k++ {
		if y, g := p.writeInPage(sh, v, k, first, last); y != nil {
			return y, v.lo + int(g-first)
		}
	}
	return nil, 0
}

// writeInPage returns a write on page k of sh, of a granule from first
// to last, that does not happen before v's launch started, and its
// granule; nil if none.
func (p *Engine) writeInPage(sh *shadow, v *roView, k, first, last uint64) (*prec, uint64) {
	pg := sh.find(k)
	if pg == nil {
		return nil, 0
	}
	mu := p.pageLock(v.m, k)
	mu.Lock()
	defer mu.Unlock()
	if pg.gen != sh.gen {
		return nil, 0
	}
	for i := range uint64(1 << pageBits) {
		g := k<<pageBits | i
		if g < first || g > last {
			continue
		}
		if y := pg.writeAt(i, v.l.base); y != nil {
			return y, g
		}
	}
	return nil, 0
}

// writeAt returns a write recorded in cell i that base, what a launch
// knew at its start, does not know; nil if none.
func (pg *page) writeAt(i uint64, base *vclock) *prec {
	unknown := func(y *prec) bool { return y.write && (base == nil || !base.knows(y.e)) }
	loc := pg.locOf(i)
	if loc == nil {
		if y := &pg.cells[i].first; y.e.c != 0 && unknown(y) {
			return y
		}
		return nil
	}
	for _, w := range [...][]prec{loc.recs, loc.wide.all(), loc.blk.all()} {
		for j := range w {
			if unknown(&w[j]) {
				return &w[j]
			}
		}
	}
	return nil
}

// all returns the set's members; none for a nil set.
func (w *threadSet) all() []prec {
	if w == nil {
		return nil
	}
	return w.members
}

// checkViews checks x, a write of th to element a.Index of global memory,
// against the cohort's read-only views, after x was recorded.
func (p *Engine) checkViews(th *pthread, t *gpu.Thread, a *gpu.Access, x *prec) {
	vs := th.l.ss.views()
	for i := range vs {
		if v := &vs[i]; v.holds(a.Mem, a.Index) && !v.l.endedBefore(th) {
			p.reportView(th, t, a, x, &v.x, v, a.Index)
			return
		}
	}
}

// endedBefore reports whether launch l had ended when th's launch
// started, or th learned that it had: th knows l's blocks as an ended
// launch's (see endedBlocks).
func (l *plaunch) endedBefore(th *pthread) bool {
	return l.g.Blocks > 0 && th.know.blockK(l.blk0) == math.MaxUint32
}

// reportView reports the broken promise of view v: x is access a of th,
// y the other side, and element i of v's memory the written one.
func (p *Engine) reportView(th *pthread, t *gpu.Thread, a *gpu.Access, x, y *prec, v *roView, i int) {
	xs, ys := p.slotOf(x), p.slotOf(y)
	site := xs.Site()
	if site.IsZero() && t != nil {
		site, xs = p.sites.Of(t)
	}
	if p.sink.Known(kind.ReadOnlyWritten, site, ys.Site()) {
		return
	}
	l := th.l
	cur, prev := l.side(x, site), l.side(y, ys.Site())
	cur.Stack, prev.Stack = p.sites.StackOf(t, xs), ys.Stack()
	r := report.Report{Kind: kind.ReadOnlyWritten, Launch: l.g.Name, Mem: a.Mem, Index: i, Current: cur, Previous: prev,
		Evidence: viewEvidence(v, x.write)}
	p.sink.Keep(r, t)
}

// viewEvidence says which promise the pair broke, and how to keep it:
// written says the current side is the write.
func viewEvidence(v *roView, written bool) string {
	view := fmt.Sprintf("global %q[%d:%d]", v.m.Name, v.lo, v.lo+v.n)
	how := "this write"
	if !written {
		how = "the write"
	}
	return fmt.Sprintf("Launch %q reads %s through a read-only view (ReadOnly: CUDA's const __restrict__ or __ldg), which promises that nothing writes it while the launch runs, and %s is of that launch or of one that ran beside it, not ordered before its start. Write the data before the launch starts, or in a launch that starts after it ended; or read it with Load, which promises nothing.",
		v.l.g.Name, view, how)
}
