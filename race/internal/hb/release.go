package hb

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A relInfo is what a strong read of a location synchronizes with: the
// releases of the last strong write and of the read-modify-writes that
// continued its release sequence. Each release is joined by the threads
// its scopes reach: dev for every thread of the launch, blocks and warps
// for the threads of one block or warp. ver counts changes, so a poll of
// an unchanged flag is recognised.
type relInfo struct {
	dev    *vclock
	blocks []relPart
	warps  []relPart
	ver    uint64
	// block0 and warp0 are the first room of blocks and warps: most
	// release states reach the threads of one block and one warp, the
	// releaser's, so a new state needs no list of its own.
	block0, warp0 [1]relPart
}

// newRelInfo returns an empty release state whose part lists start in
// its own room.
func newRelInfo() *relInfo {
	r := &relInfo{}
	r.blocks, r.warps = r.block0[:0], r.warp0[:0]
	return r
}

// A relPart is the releases that reach the threads of one block or warp.
type relPart struct {
	id int
	v  *vclock
}

// acquirable returns what a thread at pl acquires from r when its read
// and acquire have scope m: each release whose scopes reach it, which
// the structure already decided, and which m covers. It counts its joins
// in n.
func (r *relInfo) acquirable(pl scope.Place, m scope.Scope, n *counters) *vclock {
	var v *vclock
	if m >= scope.Device {
		v = r.dev
	}
	if m >= scope.Block {
		v = join(v, part(r.blocks, pl.Block), n)
	}
	if m >= scope.Warp {
		v = join(v, part(r.warps, pl.Warp), n)
	}
	return v
}

func part(ps []relPart, id int) *vclock {
	for _, p := range ps {
		if p.id == id {
			return p.v
		}
	}
	return nil
}

// addPart joins v into the part of ps for id, or adds it, and returns
// the parts and that part before and after; known is a part v is known
// to cover (see joinKnown).
func addPart(ps []relPart, id int, v, known *vclock, n *counters) (out []relPart, old, nv *vclock) {
	for i := range ps {
		if ps[i].id == id {
			old = ps[i].v
			ps[i].v = joinKnown(old, v, known, n)
			return ps, old, ps[i].v
		}
	}
	return append(ps, relPart{id, v}), nil, v
}

// joinKnown is join(old, v) for a release v that covers known: when old
// is known itself, v is the join, found with no walk.
func joinKnown(old, v, known *vclock, n *counters) *vclock {
	if old != nil && old == known {
		return v
	}
	return join(old, v, n)
}

// written records that write a of th set the location's release state. A weak or strong store starts a new release
// sequence (a weak one releases nothing); a read-modify-write continues
// the current one. A strong write releases, to the threads of each
// scope s its own scope covers, the thread's release store view rv or
// its last fence of scope s.
func (loc *ploc) written(th *pthread, a *gpu.Access, rv view) {
	if !a.Op.IsRMW() {
		loc.rel = nil
	}
	if a.Order == gpu.Weak {
		return
	}
	repeat := a.Op.IsRMW() && !rv.known
	if repeat && th.repeatsRelease(loc.rel, a.Scope) {
		return
	}
	var rvc *vclock
	if rv.known {
		rvc = th.viewClock(rv, rv.self.c) // a release access's own epoch holds it
	}
	for s := scope.Warp; s <= min(a.Scope, scope.Device); s++ {
		v, at := th.released(s), th.fencedAt(s)
		if rvc != nil && a.Scope >= s {
			v, at = rvc, rv.self.c
		}
		if v != nil {
			loc.release(th, s, v, at)
		}
	}
	if repeat {
		th.noteRelease(loc.rel, a.Scope)
	}
}

// A releaseMemo is a thread's last release into a location's release
// state by a read-modify-write that is not itself a release: the state,
// the write's scope, and the clock of the thread's last fence, whose
// views it released.
type releaseMemo struct {
	r     *relInfo
	s     scope.Scope
	fence uint64
}

// repeatsRelease reports whether a read-modify-write of scope s by th,
// not itself a release, would release into r only what th's last one
// released into r: th has not fenced since, so each scope's view it
// would release is one it released then, and s is no wider than that
// write's scope. The parts of a release state only grow (a release joins
// into a part, or replaces it with a view that covers it), so r's parts
// for th's place still cover those views, whatever other threads
// released into r since, and the release would change nothing (see
// release). So the read-modify-writes of a spinning lock's waiters
// release once per fence, not once per change of the lock's state.
func (th *pthread) repeatsRelease(r *relInfo, s scope.Scope) bool {
	c := th.cold
	return c != nil && r != nil && c.rmw.r == r && s <= c.rmw.s && c.rmw.fence == c.fenced[scope.Warp].self.c
}

// noteRelease notes th's read-modify-write of scope s, not a release,
// which has just released into r (see repeatsRelease).
func (th *pthread) noteRelease(r *relInfo, s scope.Scope) {
	if c := th.cold; c != nil && r != nil {
		c.rmw = releaseMemo{r, s, c.fenced[scope.Warp].self.c}
	}
}

// release adds v, a view of th at its clock at, released to the threads
// scope s reaches, to the location's release state, counting its joins
// in th's counters. A part th acquired whole from this state before at,
// and that no release has changed since, v covers (see knownRelease).
// A release the part already covers (a poller's read-modify-write
// repeating what its last one released) leaves the state as it was, its
// version too, so that other pollers' reads of it are still known.
func (loc *ploc) release(th *pthread, s scope.Scope, v *vclock, at uint64) {
	if loc.rel == nil {
		loc.rel = newRelInfo()
	}
	r, pl, n := loc.rel, th.place, &th.n
	kn := th.knownOf(r, at)
	var old, nv *vclock
	var held **vclock
	switch s {
	case scope.Warp:
		r.warps, old, nv = addPart(r.warps, pl.Warp, v, kn.warp, n)
		held = &th.cold.held.warp
	case scope.Block:
		r.blocks, old, nv = addPart(r.blocks, pl.Block, v, kn.block, n)
		held = &th.cold.held.block
	default:
		old, r.dev = r.dev, joinKnown(r.dev, v, kn.dev, n)
		nv, held = r.dev, &th.cold.held.dev
	}
	if nv != old {
		r.ver++
		th.follow(r, held, old, nv)
	}
}

// follow keeps the thread's held read of r current across the thread's
// own release into r: a held part *h that was old, and that the release
// made nv, becomes nv. nv adds to old only the thread's own view, which
// a fence that acquires it learns nothing from, and a fence that
// acquires nv lets the thread's next release of r replace it with no
// walk (see knownRelease). Preconditions: th.cold made.
func (th *pthread) follow(r *relInfo, h **vclock, old, nv *vclock) {
	if th.cold.held.r != r || *h != old || old == nv {
		return
	}
	th.mu.Lock()
	defer th.mu.Unlock()
	*h = nv
}
