package hb

import (
	"sync"

	"github.com/warpguard/warpguard/scope"
)

// An scOrder is PTX's Fence-SC order: the engine's fence.sc operations
// in one total order, the order they take mu in (the runtime reports a
// device's fence.sc operations under one mutex, so this is the order
// every sequencing observer of the device sees). Of two fence.sc that
// are morally strong (each one's scope covers the other's thread), the
// earlier synchronizes with the later.
//
// It keeps, per scope instance (a warp, a block, a device, the system),
// what the fence.sc operations published there: a fence.sc of scope s by
// thread A publishes into the instances of scopes warp to s that hold A,
// and joins what those same instances hold. That finds exactly the
// morally strong earlier fences: fences F (scope s, thread A) and G
// (scope g, thread B) are morally strong when B is in A's instance of s
// and A in B's instance of g, which holds when both are in their common
// instance of scope min(s, g), the one instance both publish into and
// join. Instances are numbered in the cohort (see plaunch.place), so
// clocks are kept per cohort: a new cohort starts with none.
//
// mu is taken with no other lock of the engine held, and none is taken
// under it.
type scOrder struct {
	mu   sync.Mutex
	coh  *cohort         // the cohort the clocks belong to
	inst map[scInst]view // what the fence.sc of each instance published, as the last one's view
}

// An scInst names a scope instance of a cohort: a warp, a block or a
// device by its number, or the system (id 0).
type scInst struct {
	s  scope.Scope
	id uint64
}

// fenceSC applies a fence.sc of scope s: a fence.acq_rel (see fence)
// that, between its acquire and its release, synchronizes with every
// earlier morally strong fence.sc and publishes what the thread knows
// for the later ones, so that what it learned is part of the release it
// keeps for strong writes after it.
func (th *pthread) fenceSC(s scope.Scope) {
	th.fenceAcquire(s)
	th.know = th.l.p.sc.fence(th, s)
	th.fenceRelease(s)
}

// fence joins into what th knows what the fence.sc operations of the
// instances of scopes warp to s holding th published, publishes the
// result there, and returns it. Each instance keeps the view of its last
// fence.sc, which covers every earlier one's, so a fence allocates only
// when it learns something.
func (o *scOrder) fence(th *pthread, s scope.Scope) *vclock {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.coh != th.l.ss {
		o.coh, o.inst = th.l.ss, map[scInst]view{}
	}
	know := th.know
	for l := scope.Warp; l <= s; l++ {
		if v := o.inst[th.instance(l)]; v.known && v.self.tid != th.tid {
			know = joinView(know, v, &th.n) // the thread's own last view it knows already
		}
	}
	pub := view{k: know, self: th.self(), known: true}
	for l := scope.Warp; l <= s; l++ {
		o.inst[th.instance(l)] = pub // pub covers what the instance held
	}
	return know
}

// instance returns the thread's instance of scope s, warp or wider.
func (th *pthread) instance(s scope.Scope) scInst {
	switch s {
	case scope.Warp:
		return scInst{s, uint64(th.place.Warp)}
	case scope.Block:
		return scInst{s, uint64(th.place.Block)}
	case scope.Device:
		return scInst{s, th.l.dev}
	}
	return scInst{scope.System, 0}
}
