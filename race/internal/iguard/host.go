package iguard

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/report"
	"github.com/warpguard/warpguard/scope"
)

// Host accesses. A host copy or fill (gpu.HostObserver) is made by a host
// thread that no launch orders, save by host order: a launch that ended
// before the host call began, or that starts after it returned, is
// ordered with it; a launch running meanwhile is not. So a host access
// is numbered and ordered among the running launches as a launch is
// (crosslaunch.go), for the time of the call: if a launch runs, the
// table goes on, and each granule the host touches is checked against
// the launches' records and recorded, as a weak access of a launch named
// "host" plus the host function. A launch's thread that later touches
// the granule finds the host's record there. With no launch running,
// the call only takes the cross-launch mutex twice.

// HostAccess checks the host access h against the launches running now,
// and records it for them.
func (d *Engine) HostAccess(h gpu.HostAccess) {
	l := &launch{d: d, g: &gpu.Grid{Name: "host " + h.Op}}
	d.startCross(l)
	defer d.endCross(l)
	if !l.cross.Load() {
		return // no launch runs: host order orders h with every launch
	}
	cells := l.cellsOf(h.Mem)
	me := hostSide(l, h)
	size := uint64(max(h.Mem.ElemSize, 1))
	sh := shared.Shift(h.Mem, d.shift)
	first, last := uint64(h.Index)*size>>sh, (uint64(h.Index+h.Len)*size-1)>>sh
	for g := first; g <= last && g < uint64(len(cells)); g++ {
		d.hostGranule(l, h, g, &cells[g], me)
	}
}

// hostSide is the table's side for host access h, numbered as l.
func hostSide(l *launch, h gpu.HostAccess) *crossSide {
	op := gpu.OpLoad
	if h.Write {
		op = gpu.OpStore
	}
	return &crossSide{seq: l.seq, launch: l.g.Name, host: true, side: report.Side{Op: op, Order: gpu.Weak, Scope: scope.Thread, BlockID: -1, GlobalID: -1, Host: true}}
}

// hostGranule checks host access h to granule g, whose cell is c,
// against the launches' records and records it as me.
func (d *Engine) hostGranule(l *launch, h gpu.HostAccess, g uint64, c *crossCell, me *crossSide) {
	d.hostPair(l, h, g, me, c.w.Load())
	if h.Write {
		d.hostPair(l, h, g, me, c.r.Load())
		d.hostPair(l, h, g, me, c.o.Load())
		c.w.Store(me)
		return
	}
	if r := c.r.Load(); r != nil && r.seq != me.seq {
		c.o.Store(r)
	}
	c.r.Store(me)
}

// hostPair reports a race between host access me and p, an access of a
// launch that runs at once with it. The report is the launch's: its
// thread is the current side, the host the previous.
func (d *Engine) hostPair(l *launch, h gpu.HostAccess, g uint64, me, p *crossSide) {
	k := l.crossKind(me, p)
	if k == 0 || d.sink.Known(k, p.side.Site, me.side.Site) {
		return
	}
	prev := me.side
	prev.Launch = me.launch
	index := int(g * d.granuleBytes(h.Mem) / uint64(max(h.Mem.ElemSize, 1)))
	d.sink.Keep(report.Report{Kind: k, Launch: p.launch, Mem: h.Mem, Index: index, Current: p.side, Previous: prev,
		Evidence: hostEvidence(me.launch, p.launch)}, nil)
}

// hostEvidence explains a race between host access host (its pseudo
// launch's name) and an access of launch.
func hostEvidence(host, launch string) string {
	return fmt.Sprintf("The %s touched this word while launch %q ran, and nothing orders a running launch's accesses with the host's: "+
		"only the host's order (the launch returning before the host's call, or the call returning before the launch starts) does.",
		host, launch)
}
