package hb

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// ppageBits is log2 of the granules a shadow page of the precise mode
// covers. Pages are made on first touch, so the shadow grows with the
// memory a launch touches.
const ppageBits = 4

// A pshadow maps granule numbers (byte address over Granularity) of one
// address space to pages of locations.
type pshadow map[uint64]*[1 << ppageBits]ploc

// at returns the location of granule g, making its page on first touch;
// made says it did.
func (s pshadow) at(g uint64) (loc *ploc, made bool) {
	pg := s[g>>ppageBits]
	if pg == nil {
		pg, made = new([1 << ppageBits]ploc), true
		s[g>>ppageBits] = pg
	}
	return &pg[g&(1<<ppageBits-1)], made
}

// A ploc is the precise mode's shadow of one granule: the accesses a
// later one may still race with (FastTrack's last write and reads, kept
// apart where strength or scope tells them apart), and, on the granule
// an element starts at, what a strong read of it acquires.
type ploc struct {
	recs  []prec // in one while a single access is kept: no allocation
	one   [1]prec
	wide  *threadSet // strong accesses of device scope or more
	reads *threadSet // weak reads
	rel   *relInfo
	raced bool // a race was reported here: it is checked no more
}

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
}

// A relPart is the releases that reach the threads of one block or warp.
type relPart struct {
	id int
	v  *vclock
}

// acquirable returns what a thread at pl acquires from r when its read
// and acquire have scope m: each release whose scopes reach it, which
// the structure already decided, and which m covers.
func (r *relInfo) acquirable(pl scope.Place, m scope.Scope) *vclock {
	var v *vclock
	if m >= scope.Device {
		v = r.dev
	}
	if m >= scope.Block {
		v = join(v, part(r.blocks, pl.Block))
	}
	if m >= scope.Warp {
		v = join(v, part(r.warps, pl.Warp))
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

func addPart(ps []relPart, id int, v *vclock) []relPart {
	for i := range ps {
		if ps[i].id == id {
			ps[i].v = join(ps[i].v, v)
			return ps
		}
	}
	return append(ps, relPart{id, v})
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
	var rvc *vclock
	if rv.known {
		rvc = joinView(nil, rv)
	}
	for s := scope.Warp; s <= min(a.Scope, scope.Device); s++ {
		v := th.released(s)
		if rvc != nil && a.Scope >= s {
			v = rvc
		}
		if v != nil {
			loc.release(th.place, s, v)
		}
	}
}

// release adds v, released by a thread at pl to the threads scope s
// reaches, to the location's release state.
func (loc *ploc) release(pl scope.Place, s scope.Scope, v *vclock) {
	if loc.rel == nil {
		loc.rel = &relInfo{}
	}
	r := loc.rel
	r.ver++
	switch s {
	case scope.Warp:
		r.warps = addPart(r.warps, pl.Warp, v)
	case scope.Block:
		r.blocks = addPart(r.blocks, pl.Block, v)
	default:
		r.dev = join(r.dev, v)
	}
}
