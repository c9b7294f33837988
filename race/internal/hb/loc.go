package hb

import (
	"slices"

	"github.com/warpguard/warpguard/gpu"
)

// A ploc is the precise mode's shadow of one granule: the accesses a
// later one may still race with (FastTrack's last write and reads, kept
// apart where strength or scope tells them apart), and, on the granule
// an element starts at, what a strong read of it acquires.
type ploc struct {
	recs  []prec // in few while it fits: a ploc is made for two accesses
	few   [2]prec
	wide  *threadSet // strong accesses of device scope or more
	reads *threadSet // weak reads
	rel   *relInfo
	raced bool // a race was reported here: it is checked no more
}

// check checks x, access a of th, against the accesses loc keeps, reports
// the first race, and records x: a wide access or a weak read in the
// location's set of its class, any other in its list. After a race the location is no longer
// checked: the mode's guarantee holds up to the first race per location.
func (p *Engine) check(th *pthread, t *gpu.Thread, loc *ploc, x *prec, a *gpu.Access) {
	if loc.raced {
		return
	}
	wide := x.wide(a.Mem.Space)
	if y := th.racer(loc, x, wide); y != nil {
		p.report(th, t, a, x, y)
		loc.raced, loc.recs, loc.wide, loc.reads = true, nil, nil, nil
		return
	}
	loc.record(th, x, wide)
}

// readSetAt is how many accesses a location's list holds before its weak
// reads go to a set: most locations are read by a thread or two, which the
// list keeps without allocating.
const readSetAt = 4

// racer returns an access loc keeps that races with x, an access of th,
// or nil. A wide access skips the wide set, but for a volatile one the
// members of its own warp's lanes (see warpVolatile), and only a write
// checks the weak reads.
func (th *pthread) racer(loc *ploc, x *prec, wide bool) *prec {
	y := th.conflict(loc.recs, x)
	switch {
	case y != nil || loc.wide == nil:
	case !wide:
		y = loc.wide.check(th, x)
	case x.order == gpu.Volatile:
		y = loc.wide.checkLanes(th, x) // the warp-synchronous rule
	}
	if y == nil && loc.reads != nil && x.write {
		y = loc.reads.check(th, x)
	}
	return y
}

// record keeps x, an access of th that raced with nothing, in the set of
// its class or in the list, and drops what it makes redundant.
func (loc *ploc) record(th *pthread, x *prec, wide bool) {
	loc.recs = th.prune(loc.recs, x)
	loc.place(x, wide)
}

// place keeps x in the set of its class or in the list.
func (loc *ploc) place(x *prec, wide bool) {
	switch {
	case wide:
		if loc.wide == nil {
			loc.wide = newThreadSet()
		}
		loc.wide.put(x)
	case x.weakRead() && (loc.reads != nil || len(loc.recs) >= readSetAt):
		if loc.reads == nil {
			loc.reads = newThreadSet()
		}
		loc.reads.put(x)
	default:
		switch {
		case loc.recs == nil:
			loc.recs = loc.few[:0]
		case len(loc.recs) == cap(loc.recs) && len(loc.recs) < readSetAt:
			// A list that outgrows few grows once to the size at
			// which weak reads move to a set.
			loc.recs = slices.Grow(loc.recs, readSetAt-len(loc.recs))
		}
		loc.recs = append(loc.recs, *x)
	}
}

// conflict returns the first access of recs that races with x, or nil.
func (th *pthread) conflict(recs []prec, x *prec) *prec {
	for i := range recs {
		if th.races(x, &recs[i]) {
			return &recs[i]
		}
	}
	return nil
}
