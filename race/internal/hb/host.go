package hb

import (
	"github.com/warpguard/warpguard/gpu"
)

// Host accesses. A host copy or fill (gpu.HostObserver) is made by a host
// thread that only host order orders with launches: a launch that ended
// before the call began, or that starts after it returned, is ordered with
// it; a launch running meanwhile is not. With no launch running, the call
// is ordered with every launch and the engine records nothing. Otherwise
// the call is a one-thread launch of the running cohort that starts and
// ends within the call: its thread knows the cohort's ended launches,
// as any launch starting now would, its accesses are weak loads or stores
// checked and recorded as any thread's, and the launches that start after
// it know it.

// HostAccess checks host access h against the launches running now, and
// records it for them.
func (p *Engine) HostAccess(h gpu.HostAccess) {
	l := p.hostLaunch(h)
	if l == nil {
		return
	}
	th := &pthread{l: l, tid: l.tid0, place: l.place(l.tid0), c: 1, know: l.base, n: counters{flat: l.p.flat}}
	op := gpu.OpLoad
	if h.Write {
		op = gpu.OpStore
	}
	size := uint64(max(h.Mem.ElemSize, 1))
	for i := h.Index; i < h.Index+h.Len; i++ {
		a := gpu.Access{Mem: h.Mem, Index: i, Offset: uint64(i) * size, Size: uint8(size), Op: op, Order: gpu.Weak}
		p.hostElement(th, &a)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l.ended = true
	l.ss.hosts--
}

// hostLaunch numbers a one-thread launch for host access h in the
// running cohort, knowing its ended launches; nil if no launch runs.
func (p *Engine) hostLaunch(h gpu.HostAccess) *plaunch {
	p.mu.Lock()
	defer p.mu.Unlock()
	ss := p.coh
	if ss.running == 0 {
		return nil
	}
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	g := &gpu.Grid{Name: "host " + h.Op, GridDim: one, BlockDim: one, Blocks: 1, BlockSize: 1, Threads: 1, WarpSize: 1, Warps: 1}
	l := &plaunch{p: p, ss: ss, g: g, host: h.Op, tid0: ss.threads, warp0: ss.warps, blk0: ss.blocks, base: ss.endedBlocks(), dev: h.Mem.DeviceID}
	ss.threads++
	ss.warps++
	ss.blocks++
	ss.hosts++
	ss.addLaunch(l)
	return l
}

// hostElement checks and records the host thread th's access a to one
// element, as Access does a thread's.
func (p *Engine) hostElement(th *pthread, a *gpu.Access) {
	ac := access{th: th, a: a}
	th.record(&ac.x, a, gpu.Site{}, nil)
	sh := th.shadowOf(a.Mem)
	first, last := p.granules(a)
	for g := first; g <= last; g++ {
		p.visit(&ac, sh, g, g == first)
	}
	if ac.x.write && a.Mem.Space == gpu.GlobalSpace {
		p.checkViews(th, nil, a, &ac.x)
	}
}
