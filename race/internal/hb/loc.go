package hb

import (
	"slices"
	"unsafe"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A ploc is the precise mode's shadow of one granule: the accesses a
// later one may still race with (FastTrack's last write and reads, kept
// apart where strength or scope tells them apart), and, on the granule
// an element starts at, what a strong read of it acquires.
type ploc struct {
	recs []prec     // in few while it fits: a ploc is made for two accesses
	wide *threadSet // strong accesses of device scope or more
	// blk holds the block-wide strong accesses (see prec.blockWide) of
	// the threads of block blkID, the first block to make one here:
	// any two of them are a morally strong pair, as each is with a later
	// one of that block, which therefore skips them all.
	blk   *threadSet
	blkID int32
	reads *threadSet // weak reads
	rel   *relInfo
	raced bool // a race was reported here: it is checked no more
	// few is the list's first room. It is the last field, so that a
	// roomyPloc's more follows it in memory and the two are one array.
	few [2]prec
}

// A roomyPloc is a ploc whose list holds readSetAt records in place, few
// and more together: a page whose granules' lists outgrow few (a 2D
// stencil's input, read by five threads) makes its full states so, in
// one allocation where a ploc and its list's growth would take two.
type roomyPloc struct {
	ploc
	more [readSetAt - len(ploc{}.few)]prec
}

// roomyLayout is true when a roomyPloc's more directly follows its few.
const roomyLayout = unsafe.Offsetof(roomyPloc{}.more) == unsafe.Offsetof(ploc{}.few)+unsafe.Sizeof(ploc{}.few)

// newPloc returns an empty full state, roomy if roomy is set.
func newPloc(roomy bool) *ploc {
	if !roomy || !roomyLayout {
		return new(ploc)
	}
	r := new(roomyPloc)
	r.recs = unsafe.Slice(&r.few[0], readSetAt)[:0]
	return &r.ploc
}

// check checks x, access a of th, against the accesses loc keeps, reports
// the first race, and records x: a wide access or a weak read in the
// location's set of its class (a spare of f, loc's page's full states,
// if it has one), any other in its list. After a race the location is no longer
// checked: the mode's guarantee holds up to the first race per location.
func (p *Engine) check(th *pthread, t *gpu.Thread, loc *ploc, x *prec, a *gpu.Access, f *fullStates) {
	if loc.raced {
		return
	}
	wide := x.wide(a.Mem.Space)
	if loc.repeats(x) || loc.readRepeats(x) || loc.strongRepeats(x, wide) {
		th.n.repeats++
		return
	}
	if y := th.racer(loc, x, wide); y != nil {
		p.report(th, t, a, x, y)
		loc.raced, loc.recs, loc.wide, loc.blk, loc.reads = true, nil, nil, nil, nil
		return
	}
	loc.record(th, x, wide, f)
}

// repeats reports whether x, an access of the thread of x.e, repeats the
// last record of loc's list: x is weak, and the record is a weak access
// of the same thread at the same epoch that writes, or that x does not
// (FastTrack's same-epoch case, as cell.quick has it for a first
// record). Such an x adds nothing, and is neither checked nor recorded:
// the thread released nothing between the two, so no other thread's
// access is ordered after one and not the other, and whatever races with
// x races with the record and was checked against it, by the record's
// check or its own. A record x would have pruned (one the thread learned
// of since) stays: pruning saves later checks a comparison, and a later
// access unordered with that record races with it indeed.
func (loc *ploc) repeats(x *prec) bool {
	n := len(loc.recs)
	if n == 0 || x.strong() {
		return false
	}
	y := &loc.recs[n-1]
	return y.e == x.e && !y.strong() && (y.write || !x.write)
}

// readRepeats reports whether x, a weak read, repeats its thread's read
// in loc's read set: the same epoch, which adds nothing, as repeats says.
// When it does not, the put that follows finds the member again through
// the set's index or, unindexed, its memo of the last find.
func (loc *ploc) readRepeats(x *prec) bool {
	if loc.reads == nil || !x.weakRead() {
		return false
	}
	i, ok := loc.reads.find(setKey(x))
	return ok && loc.reads.members[i].e == x.e
}

// strongRepeats reports whether x, a strong access of the thread of
// x.e, repeats that thread's member of the set x would go to: the same
// access (operation, order, scope, and whether it wrote) at the same
// epoch, as a poll of a flag, a failed CAS of a spin lock, or a
// thread's relaxed atomicAdds to one counter make between releases.
// Such an x adds nothing, as repeats says: whatever races with x races
// with the member, by the same scopes, and was checked against it.
func (loc *ploc) strongRepeats(x *prec, wide bool) bool {
	switch {
	case !x.strong():
		return false
	case wide:
		return loc.wide.holdsSame(x)
	case x.blockWide() && loc.blkID == x.e.blk:
		return loc.blk.holdsSame(x)
	}
	return false
}

// readSetAt is how many accesses a location's list holds before its weak
// reads go to a set: most locations are read by a thread or two, which the
// list keeps without allocating.
const readSetAt = 5

// racer returns an access loc keeps that races with x, an access of th,
// or nil. A wide access skips the wide set, and an access of the block
// set's block of block scope or wider skips that set (see
// skipsBlockSet), but for a volatile one the members of its own warp's
// lanes (see warpVolatile); only a write checks the weak reads.
func (th *pthread) racer(loc *ploc, x *prec, wide bool) *prec {
	var y *prec // as racerIn, with conflict's walk inlined here
	if walksInline(x, len(loc.recs)) {
		y = th.conflict(loc.recs, x)
	} else {
		y = th.writeRacer(loc.recs, x)
	}
	if y == nil && loc.blk != nil {
		y = th.checkBlockSet(loc, x)
	}
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
// its class or in the list, and drops what it makes redundant; a new set
// comes from f (see place).
//
// A weak read drops from the list only what it must to keep the list
// short: a read that goes to the read set drops nothing (the list stopped
// taking reads when the set was made, so it does not grow), and one that
// goes to a list with room drops only its own thread's earlier reads,
// which need no clock to be known. Only a read that finds the list full
// asks, record by record, whether its thread knows the others' reads,
// to make room before a set is made. What a read leaves in the list,
// reads it follows, only names an earlier side of a race the read has
// too; asking for each of them at every read, as every lane of a warp
// reading one element, or the five readers of a stencil's point, would,
// costs clock lookups for nothing.
func (loc *ploc) record(th *pthread, x *prec, wide bool, f *fullStates) {
	switch {
	case !x.weakRead():
		loc.recs = th.prune(loc.recs, x)
	case loc.reads != nil && loc.reads.put(x, loc.reads.followedBy(th)):
		return
	case len(loc.recs) < readSetAt:
		if r := dropReadsOf(loc.recs, th.tid); len(r) != len(loc.recs) {
			loc.recs = r
		}
	default:
		loc.recs = th.prune(loc.recs, x)
	}
	loc.place(th, x, wide, f, th.blockKeys())
}

// dropReadsOf returns recs without the reads of thread tid. A record it
// keeps moves only if an earlier one was dropped: most readers of a
// location have no read there yet, and rewriting the list in place
// would only dirty it.
func dropReadsOf(recs []prec, tid int32) []prec {
	n := 0
	for i := range recs {
		if recs[i].write || recs[i].e.tid != tid {
			if n != i {
				recs[n] = recs[i]
			}
			n++
		}
	}
	return recs[:n]
}

// place keeps x in the set of its class or, failing that, in the list; a
// new set is a spare of f, the full states of loc's page, if it has one
// (f may be nil), made for the keys run of the block of x's thread. th
// is x's thread, or nil when x is an earlier access moving to a new
// state (see page.loc).
func (loc *ploc) place(th *pthread, x *prec, wide bool, f *fullStates, run keyRun) {
	switch {
	case wide:
		if loc.wide == nil {
			loc.wide = f.newSet(setIndexAt, run)
		}
		if putIn(loc.wide, th, x) {
			return
		}
	case x.blockWide() && (loc.blk == nil || loc.blkID == x.e.blk):
		if loc.blk == nil {
			loc.blk, loc.blkID = f.newSet(setIndexAt, run), x.e.blk
		}
		if putIn(loc.blk, th, x) {
			return
		}
	case x.weakRead() && (loc.reads != nil || len(loc.recs) >= readSetAt):
		if loc.reads == nil {
			loc.reads = f.newSet(readsIndexAt, run)
		}
		if putIn(loc.reads, th, x) {
			return
		}
	}
	loc.list(x)
}

// putIn puts x, an access of th (nil: of no thread making it now), in w,
// keeping w's chain when th follows it.
func putIn(w *threadSet, th *pthread, x *prec) bool {
	return w.put(x, th != nil && w.followedBy(th))
}

// crowded reports whether loc's list has outgrown few, or its weak reads
// a set: a sign that its page's granules are read by many threads.
func (loc *ploc) crowded() bool { return len(loc.recs) > len(loc.few) || loc.reads != nil }

// list keeps x in loc's list: an access of no set's class, or one that
// must stay beside its set's member of the same thread (see supersedes).
func (loc *ploc) list(x *prec) {
	switch {
	case loc.recs == nil:
		loc.recs = loc.few[:0]
	case len(loc.recs) == cap(loc.recs) && len(loc.recs) < readSetAt:
		// A list that outgrows few grows once to the size at which
		// weak reads move to a set.
		loc.recs = slices.Grow(loc.recs, readSetAt-len(loc.recs))
	}
	loc.recs = append(loc.recs, prec{})
	x.copyTo(&loc.recs[len(loc.recs)-1])
}

// checkBlockSet returns a member of loc's block set that races with x,
// an access of th, or nil. An access of the set's block that skips the
// set (see skipsBlockSet) checks only the members of its own warp's
// lanes, and those only when it is volatile (see warpVolatile); any
// other walks the set.
func (th *pthread) checkBlockSet(loc *ploc, x *prec) *prec {
	switch {
	case !skipsBlockSet(x, loc.blkID):
		return loc.blk.check(th, x)
	case x.order == gpu.Volatile:
		return loc.blk.checkLanes(th, x)
	}
	return nil
}

// skipsBlockSet reports whether x, an access of the thread of x.e, is a
// morally strong pair with every member of a block set of block blk: it
// is strong, of block scope or wider, and of a thread of blk. Each member
// is a strong access of block scope or wider by a thread of blk, so each
// one's scope includes both threads, the pair being of one block; but
// two volatile lanes of one warp are not morally strong (see
// warpVolatile), so a volatile x still checks its warp's lanes.
func skipsBlockSet(x *prec, blk int32) bool {
	return x.strong() && x.scope >= scope.Block && x.e.blk == blk
}

// racerIn returns the first access of recs that races with x, or nil.
func (th *pthread) racerIn(recs []prec, x *prec) *prec {
	if walksInline(x, len(recs)) {
		return th.conflict(recs, x)
	}
	return th.writeRacer(recs, x)
}

// walksInline reports whether x's walk of n records compares each by a
// call (see conflict): a write's, which every record may race with, and
// a read's of fewer than readWalkAt records, where skipping a read costs
// less than the call to writeRacer that would skip it.
func walksInline(x *prec, n int) bool { return x.write || n < readWalkAt }

// readWalkAt is the fewest records a read's walk passes over in
// writeRacer.
const readWalkAt = 3

// conflict returns the first access of recs that races with x, or nil.
func (th *pthread) conflict(recs []prec, x *prec) *prec {
	for i := range recs {
		if th.races(x, &recs[i]) {
			return &recs[i]
		}
	}
	return nil
}

// writeRacer is conflict for x, a read: a read conflicts with writes
// only, so its walk passes over the reads of recs (the most of a list
// where a tile's readers leave theirs) without a call, counting each as
// a pair compared, as races counts the pairs it compares.
func (th *pthread) writeRacer(recs []prec, x *prec) *prec {
	var passed uint64
	for i := range recs {
		switch y := &recs[i]; {
		case !y.write:
			passed++
		case th.races(x, y):
			th.n.pairs += passed
			return y
		}
	}
	th.n.pairs += passed
	return nil
}
