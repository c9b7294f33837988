package hb

import (
	"sync"

	"github.com/warpguard/warpguard/scope"
)

// An scOrder is PTX's Fence-SC order: the cohort's fence.sc operations
// in one total order. Of two fence.sc that are morally strong (each one's
// scope covers the other's thread), the earlier synchronizes with the
// later.
//
// It keeps, per scope instance (a warp, a block, a device, the system), a
// slot of what the fence.sc operations published there: a fence.sc of
// scope s by thread A publishes into the instances of scopes warp to s
// that hold A, and joins what those same instances hold. That finds
// exactly the morally strong earlier fences: fences F (scope s, thread A)
// and G (scope g, thread B) are morally strong when B is in A's instance
// of s and A in B's instance of g, which holds when both are in their
// common instance of scope min(s, g), the one instance both publish into
// and join.
//
// Each slot has its own mutex, and a fence publishes while it holds the
// mutexes of all its instances, widest first, having joined what they
// hold then, so the fences that share an instance are ordered by its
// mutex, and the order of the cohort's fences is any total order that
// extends those: two-phase locking makes the per-instance orders acyclic
// together. A fence of block scope or narrower also joins while it holds
// them; a wider one joins before, with none held, what it read of its
// slots, and publishes only if they still hold it (see fenceWide). Where
// a second sequencing observer watches beside the engine (the oracle's
// recorder), the runtime reports a fence.sc under mutexes of the same
// instances (see gpu.Sequencer), so the order each slot's mutex gives is
// the one the other observer sees; block fences of two blocks share no
// slot and run side by side.
//
// Instances are numbered in the cohort (see plaunch.place), so each
// cohort has its own scOrder. mu guards the table only; a slot's mutex is
// taken with no other lock of the engine held but wider slots' mutexes.
type scOrder struct {
	mu   sync.Mutex
	inst map[scInst]*scSlot
}

// An scInst names a scope instance of a cohort: its number (a warp, a
// block or a device by its number, or 0 for the system) shifted left past
// the scope, which fills the low bits. A map keyed by one integer hashes
// it inline, where a key of two fields is hashed by a generic call.
type scInst uint64

// scInstBits is the low bits of an scInst that hold its scope.
const scInstBits = 3

// Every scope fits in scInstBits (a compile error otherwise).
const _ uint = 1<<scInstBits - 1 - uint(scope.System)

// instOf returns the instance number id of scope s.
func instOf(s scope.Scope, id uint64) scInst { return scInst(id<<scInstBits | uint64(s)) }

// An scSlot is what the fence.sc of one scope instance published: the
// view of the last one, which covers every earlier one's.
type scSlot struct {
	mu sync.Mutex
	v  view
}

// fenceSC applies a fence.sc of scope s: a fence.acq_rel (see fence)
// that, between its acquire and its release, synchronizes with every
// earlier morally strong fence.sc and publishes what the thread knows
// for the later ones, so that what it learned is part of the release it
// keeps for strong writes after it. A vclock the fence.sc publishes is
// that release's too (see scOrder.fence).
func (th *pthread) fenceSC(s scope.Scope) {
	var buf [maxJoin]*vclock
	ins := th.takeAcquire(s, append(buf[:0], th.know))
	var mat *vclock
	th.know, mat = th.l.ss.sc.fence(th, s, ins)
	th.settle()
	th.fenceRelease(s)
	if mat != nil {
		th.keepRelease(s, mat)
	}
}

// fence joins ins, what th knows and what its fence acquires, with what
// the fence.sc operations of the instances of scopes warp to s holding
// th published, publishes the result there, and returns it, know. A fence
// that joined another thread's view (one link of a chain of fencers), or
// whose thread released the view of its last fence, publishes mat, the
// vclock of the view of th that knows know at th's current epoch, and
// returns it too: a later fencer that learned nothing else since takes it
// whole, and so do th's strong writes after the fence, which release the
// same view (see keepRelease); publishing know and th's epoch apart would
// have each of them copy the chunk of th's entry again. Any other fence,
// as a lone thread's between weak accesses, publishes the parts and
// returns a nil mat, allocating nothing: nobody may need the vclock.
//
// A fence of block scope or narrower joins under its slots' mutexes,
// which only its block's threads share. A wider fence's widest slot is
// shared by every block, and fences that joined under its mutex would
// queue there, one join at a time, so a wider fence joins with no mutex
// held (see fenceWide).
func (o *scOrder) fence(th *pthread, s scope.Scope, ins []*vclock) (know, mat *vclock) {
	if s < scope.Warp {
		return joinAll(ins, nil, &th.n), nil
	}
	slots := &th.coldState().sc
	if slots[s] == nil { // slots finds all of scopes warp to s at once: the narrower are set too
		o.slots(th, s, slots)
	}
	if s >= scope.Device {
		return fenceWide(th, slots, s, ins)
	}
	lockSlots(slots, s)
	know, chained := th.joinViews(ins, viewsOf(slots, s, &th.cold.scSeen), s, false)
	publish(th, slots, s, know)
	return know, matOf(know, chained)
}

// fenceWide is fence for a fence.sc of device or system scope, whose
// join, the longest step of a fence, runs outside the slots' mutexes, so
// that the fences of different blocks join side by side: it reads the
// views of its instances, joins them, and publishes the result only if
// no fence published there in between; otherwise it joins what that
// fence published and tries again. Its place in the Fence-SC order is
// where it publishes, under every slot's mutex, and what it joins then
// is every view those slots hold: the join under the mutexes, done
// ahead. A fence tries again only because another published, so the
// fences of a cohort always progress. There is no bound on its tries: a
// fence that joined under the mutexes after a few failures would make
// the others wait on that join, and fail in turn.
func fenceWide(th *pthread, slots *[scope.System + 1]*scSlot, s scope.Scope, ins []*vclock) (know, mat *vclock) {
	seen := th.readViews(slots, s)
	chained := false
	for {
		know, chained = th.joinViews(ins, seen, s, chained)
		lockSlots(slots, s)
		if seen.hold(slots, s) {
			break
		}
		viewsOf(slots, s, seen)
		unlockSlots(slots, s)
		ins = append(ins[:0], know) // know covers ins and what the slots held
	}
	publish(th, slots, s, know)
	return know, matOf(know, chained)
}

// readViews returns the views th's slots of scopes warp to s hold, in
// th's room for them.
func (th *pthread) readViews(slots *[scope.System + 1]*scSlot, s scope.Scope) *scViews {
	lockSlots(slots, s)
	defer unlockSlots(slots, s)
	return viewsOf(slots, s, &th.cold.scSeen)
}

// scViews are the views a fence's slots hold, by scope, warp to its own.
type scViews [scope.System + 1]view

// viewsOf copies the views of slots of scopes warp to s into vs and
// returns it. Preconditions: their mutexes held.
func viewsOf(slots *[scope.System + 1]*scSlot, s scope.Scope, vs *scViews) *scViews {
	for l := scope.Warp; l <= s; l++ {
		vs[l] = slots[l].v
	}
	return vs
}

// hold reports whether slots of scopes warp to s still hold the views
// vs. Preconditions: their mutexes held.
func (vs *scViews) hold(slots *[scope.System + 1]*scSlot, s scope.Scope) bool {
	for l := scope.Warp; l <= s; l++ {
		if v := &slots[l].v; v.k != vs[l].k || v.self != vs[l].self {
			return false
		}
	}
	return true
}

// joinViews joins ins with vs, the views of th's instances of scopes
// warp to s but those th published itself (which it knows), and with
// th's epoch if the fence is chained: if it was (chained), if it joins
// another thread's view, or if th released the view of its last fence.
// It returns the join and whether the fence is chained.
func (th *pthread) joinViews(ins []*vclock, vs *scViews, s scope.Scope, chained bool) (*vclock, bool) {
	var eps [scopeEpochs]epoch
	es := eps[:0]
	for l := scope.Warp; l <= s; l++ {
		if v := &vs[l]; v.known && v.self.tid != th.tid {
			ins, es = append(ins, v.k), append(es, v.self)
		}
	}
	chained = chained || len(es) > 0 || th.cold.fvc[scope.Warp] != nil
	if chained {
		es = append(es, th.last())
	}
	return joinAll(ins, es, &th.n), chained
}

// matOf returns know if the fence is chained, else nil (see fence).
func matOf(know *vclock, chained bool) *vclock {
	if chained {
		return know
	}
	return nil
}

// lockSlots locks the mutexes of slots of scopes s down to warp, widest
// first, as every fence does: two-phase locking in one order makes the
// slots' orders one acyclic Fence-SC order.
func lockSlots(slots *[scope.System + 1]*scSlot, s scope.Scope) {
	for l := s; l >= scope.Warp; l-- {
		slots[l].mu.Lock()
	}
}

// unlockSlots unlocks what lockSlots locked.
func unlockSlots(slots *[scope.System + 1]*scSlot, s scope.Scope) {
	for l := scope.Warp; l <= s; l++ {
		slots[l].mu.Unlock()
	}
}

// publish stores know, at th's epoch, as the view of slots of scopes warp
// to s, and unlocks them. Preconditions: their mutexes held, and know
// covers what they held.
func publish(th *pthread, slots *[scope.System + 1]*scSlot, s scope.Scope, know *vclock) {
	pub := view{k: know, self: th.last(), known: true}
	for l := scope.Warp; l <= s; l++ {
		slots[l].v = pub
	}
	unlockSlots(slots, s)
}

// slots finds th's instances' slots of scopes warp to s, making those
// the table lacks. A thread keeps them (pcold.sc): its instances do not
// change while it runs, and its cohort's table only grows.
func (o *scOrder) slots(th *pthread, s scope.Scope, into *[scope.System + 1]*scSlot) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.inst == nil {
		o.inst = map[scInst]*scSlot{}
	}
	for l := scope.Warp; l <= s; l++ {
		k := th.instance(l)
		if into[l] = o.inst[k]; into[l] == nil {
			into[l] = new(scSlot)
			o.inst[k] = into[l]
		}
	}
}

// instance returns the thread's instance of scope s, warp or wider.
func (th *pthread) instance(s scope.Scope) scInst {
	switch s {
	case scope.Warp:
		return instOf(s, uint64(th.place.Warp))
	case scope.Block:
		return instOf(s, uint64(th.place.Block))
	case scope.Device:
		return instOf(s, th.l.dev)
	}
	return instOf(scope.System, 0)
}
