package hb

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A threadSet holds accesses of one class of a location, at most one read
// and one write per thread, FastTrack's read vector in the form of the
// accesses themselves. A location keeps two: its strong accesses of a
// scope that includes every thread that can reach it (wide), any two of
// which are a morally strong
// pair, as each is with any later wide access, which therefore skips
// them all; and its weak reads, which no read conflicts with. Only an
// access that may race with a class is checked against its members one by
// one. A hot atomic counter, or an input every thread reads, so costs a
// map update per access instead of a walk of every earlier thread.
type threadSet struct {
	members []prec
	at      *setIndex // 2*tid+write → index in members, once there are many
	// hi maps, once the set is indexed, each block of a member ever put
	// to one more than the highest generation (block-wide barriers passed)
	// of its members' epochs: a thread whose vclock knows every block past
	// hi knows every member (see knownBy). It never shrinks.
	hi  *blockGens
	few [setFew]prec // members' first room: a new set is one allocation
	// indexAt is how many members the set holds before it indexes them.
	indexAt int
	room    *setIndex // an emptied index for the next one (see threadSet.empty), or nil
	// run is the keys of the threads of the block of the access that made
	// the set: an index whose keys are all in it covers it rather than
	// turn into a map (see setIndex.widen).
	run keyRun
	// found is the member an unindexed find found last, asked first by
	// the next: a weak read's repeat check and its put look up one member.
	found int32
	// tids has bit tid%64 set for the thread of every member: an
	// unindexed find of a thread whose bit is clear misses without a
	// walk, as a reader's first read of a tile element after a barrier
	// does, twice (its repeat check and its put). A write that prunes
	// members recomputes it from those left.
	tids uint64
	// last and broken are the set's chain (see set_chain.go).
	last   int32
	broken bool
}

// A keyRun is the run of set keys (see setKey) of one block's threads:
// n keys from lo, two per thread.
type keyRun struct{ lo, n int32 }

// blockKeys returns the run of set keys of th's block's threads.
func (th *pthread) blockKeys() keyRun {
	return keyRun{lo: 2 * (th.tid - th.rank), n: 2 * int32(th.l.g.BlockSize)}
}

// holds reports whether key k is in the run.
func (r keyRun) holds(k int32) bool { return uint(k-r.lo) < uint(r.n) }

// setFew is how many members a set holds before its members grow out of
// the set's own room.
const setFew = 2

// newThreadSet returns an empty set, made for an access of a thread whose
// block's keys are run, that indexes its members past indexAt of them.
func newThreadSet(indexAt int, run keyRun) *threadSet {
	w := &threadSet{indexAt: indexAt, run: run}
	w.members = w.few[:0]
	return w
}

// setIndexAt is how many members a set of strong accesses holds before
// it indexes them, and readsIndexAt a set of weak reads: a scan of a few
// dozen contiguous members costs less than building an index (a table
// and the blocks' generations, two allocations), so a location read by
// one row or column of a tile (16 or 32 threads) between barriers, or
// an output word that each tap of a filter adds into atomically, needs
// none; but a read of a location that
// strong accesses reach walks their set unless its index says that the
// reader's block entries order every member (see knownBy).
const (
	setIndexAt   = 16
	readsIndexAt = 32
)

// wide reports whether x, an access to memory of space sp, is a wide
// access: strong, of a scope that includes every thread that can reach
// the memory (device scope for global memory, block scope for shared).
func (x *prec) wide(sp gpu.Space) bool {
	return x.strong() && (x.scope >= scope.Device || sp == gpu.SharedSpace && x.scope >= scope.Block)
}

// blockWide reports whether x is a block-wide access that is not wide:
// strong, of block scope or wider, but not of a scope that includes
// every thread that can reach the memory (global memory accessed at
// block scope). Two such accesses by threads of one block are a morally
// strong pair, the volatile lanes of one warp aside (see warpVolatile).
// Precondition: x is not wide.
func (x *prec) blockWide() bool { return x.strong() && x.scope >= scope.Block }

// weakRead reports whether x is a weak read.
func (x *prec) weakRead() bool { return !x.strong() && !x.write }

func setKey(x *prec) int32 {
	if x.write {
		return 2*x.e.tid + 1
	}
	return 2 * x.e.tid
}

// put records x, replacing the thread's earlier access of the same class
// and kind: it is ordered before x and races with whatever x races with,
// unless it is volatile and x is not (see supersedes). put reports whether
// it recorded x; when it did not, the caller keeps x elsewhere. after
// says x follows every member (see followedBy), which keeps the set's
// chain; an x not known to, unless it is the only member, breaks it (see
// set_chain.go).
func (w *threadSet) put(x *prec, after bool) bool {
	k := setKey(x)
	if i, ok := w.find(k); ok {
		if !supersedes(x, &w.members[i]) {
			return false
		}
		x.copyTo(&w.members[i])
		w.chained(i, after)
		if w.hi != nil {
			w.raise(x.e)
		}
		return true
	}
	w.members = append(w.members, prec{})
	x.copyTo(&w.members[len(w.members)-1])
	w.tids |= tidBit(x.e.tid)
	w.chained(len(w.members)-1, after)
	if w.at != nil {
		w.at.set(k, int32(len(w.members)-1))
		w.raise(x.e)
	} else if len(w.members) > w.indexAt {
		w.index()
	}
	return true
}

// supersedes reports whether x, a later access of the thread that made y,
// races with every access y races with, so that y need not be kept: a
// non-volatile access does not supersede a volatile one, which by the
// warp-synchronous rule still races with a volatile access of another
// lane of its warp that x, an atomic, is a morally strong pair with.
func supersedes(x, y *prec) bool {
	return y.order != gpu.Volatile || x.order == gpu.Volatile
}

// raise notes member epoch e in hi.
func (w *threadSet) raise(e epoch) { w.hi.raise(e) }

// knownBy reports whether th knows every member of an indexed set by
// its block entries alone: a check over the set's blocks, not its
// members. False says nothing.
func (w *threadSet) knownBy(th *pthread) bool {
	return w.hi != nil && w.hi.knownBy(th.know)
}

// holdsSame reports whether the set holds x itself: a member of x's
// thread and key at x's epoch, of x's operation, order and scope (its
// site aside). A nil set holds nothing.
func (w *threadSet) holdsSame(x *prec) bool {
	if w == nil {
		return false
	}
	i, ok := w.find(setKey(x))
	return ok && sameAccess(&w.members[i], x)
}

// sameAccess reports whether x and y are one access but for the site: a
// thread's access repeated at one epoch.
func sameAccess(x, y *prec) bool {
	return x.e == y.e && x.op == y.op && x.order == y.order && x.scope == y.scope && x.write == y.write
}

// find returns the index of the member with key k.
func (w *threadSet) find(k int32) (int, bool) {
	if w.at != nil {
		i, ok := w.at.find(k)
		return int(i), ok
	}
	tid, write := k>>1, k&1 == 1 // see setKey
	if w.tids&tidBit(tid) == 0 {
		return 0, false
	}
	if i := int(w.found); i < len(w.members) {
		if y := &w.members[i]; y.e.tid == tid && y.write == write {
			return i, true
		}
	}
	for i := range w.members {
		if y := &w.members[i]; y.e.tid == tid && y.write == write {
			w.found = int32(i)
			return i, true
		}
	}
	return 0, false
}

// tidBit returns the bit of thread tid in a set's tids.
func tidBit(tid int32) uint64 { return 1 << (uint32(tid) & 63) }

// tidsOf returns the tids of a set of members ms.
func tidsOf(ms []prec) uint64 {
	var b uint64
	for i := range ms {
		b |= tidBit(ms[i].e.tid)
	}
	return b
}

// index builds the member index, which may cover the run of keys of
// the set's block's threads (see setIndex.widen).
func (w *threadSet) index() {
	w.at, w.room = w.room, nil
	if w.at == nil {
		w.at = new(setIndex)
	}
	if w.hi == nil {
		w.hi = new(blockGens)
	}
	w.at.run = w.run
	for i := range w.members {
		w.at.set(setKey(&w.members[i]), int32(i))
		w.raise(w.members[i].e)
	}
}

// check returns a member that races with x, an access of th, or nil; it
// drops the members x makes redundant. A read that follows every member
// in happens-before by its block entries (after a grid sync, say) races
// with none and drops none (a read drops no write), so it skips the walk.
func (w *threadSet) check(th *pthread, x *prec) *prec {
	if !x.write && w.knownBy(th) {
		return nil
	}
	if len(w.members) < chainAt || !w.followedBy(th) {
		if y := th.racerIn(w.members, x); y != nil {
			return y
		}
	}
	n := len(w.members)
	w.members = th.prune(w.members, x)
	if len(w.members) != n {
		w.tids = tidsOf(w.members)
		w.dropped(len(w.members))
		if w.at != nil {
			w.reindex()
		}
	}
	return nil
}

// reindex rebuilds the member index after members were dropped, in the
// index's own room: a location read by a block's threads between
// barriers, and written after each, refills one table rather than
// allocating one per write. Its blocks' generations stay noted.
func (w *threadSet) reindex() {
	w.at.clear()
	for i := range w.members {
		w.at.set(setKey(&w.members[i]), int32(i))
	}
}

// checkLanes returns a member of the lanes of x's warp that races with x,
// a volatile access of th that every member of the set is a morally
// strong pair with but for the warp-synchronous rule (a wide access and
// the wide set, or an access of a block set's block and that set), or
// nil: only the volatile members of its warp's lanes that conflict with
// it can race with it (see warpVolatile), so no other member is compared. A set that is not
// indexed is walked; an indexed one is looked up lane by lane, under the
// write key only when x reads (see setKey).
func (w *threadSet) checkLanes(th *pthread, x *prec) *prec {
	if w.followedBy(th) {
		return nil
	}
	lo, hi := th.lanes()
	if w.at == nil {
		for i := range w.members {
			if y := &w.members[i]; y.e.tid >= lo && y.e.tid < hi && laneRival(x, y) && th.laneRaces(x, y) {
				return y
			}
		}
		return nil
	}
	known := laneKnowledge{cur: runCursor{v: th.know}, bk: th.know.blockK(int32(th.place.Block))}
	tab, k0, dense := w.at.span(2*lo, 2*hi)
	if !dense {
		return w.checkLanesByKey(th, x, lo, hi, &known)
	}
	for j, i := range tab {
		// a read races with writes only: each lane's write key, 2*tid+1
		if i != 0 && (x.write || (k0+int32(j))&1 == 1) && laneRival(x, &w.members[i-1]) && th.laneUnordered(x, &w.members[i-1], &known) {
			return &w.members[i-1]
		}
	}
	return nil
}

// checkLanesByKey is checkLanes for a set whose index is a map: each
// lane's keys looked up in turn.
func (w *threadSet) checkLanesByKey(th *pthread, x *prec, lo, hi int32, known *laneKnowledge) *prec {
	first := int32(1) // a read races with writes only: each lane's write key
	if x.write {
		first = 0
	}
	for tid := lo; tid < hi; tid++ {
		for k := 2*tid + first; k <= 2*tid+1; k++ {
			if i, ok := w.at.find(k); ok && laneRival(x, &w.members[i]) && th.laneUnordered(x, &w.members[i], known) {
				return &w.members[i]
			}
		}
	}
	return nil
}

// laneKnowledge is what a thread knows of its warp's lanes, read in
// rising thread order: its vclock through a cursor, and its block entry
// for their block.
type laneKnowledge struct {
	cur runCursor
	bk  uint32
}

// laneUnordered is laneRaces for members met in rising thread order,
// reading what th knows through known.
func (th *pthread) laneUnordered(x, y *prec, known *laneKnowledge) bool {
	th.n.pairs++
	return y.e.tid != th.tid && known.cur.threadC(y.e.tid) < y.e.c && y.e.gen() >= known.bk
}

// lanes returns the thread ids lo to hi-1 of the lanes of th's warp: its
// first lane's and the next WarpSize, within its block.
func (th *pthread) lanes() (lo, hi int32) {
	ws := int32(th.l.g.WarpSize)
	rank := th.tid - th.l.tid0 - int32(th.l.local(th.place.Block)*th.l.g.BlockSize)
	lo = th.tid - rank%ws
	return lo, min(lo+ws, th.tid-rank+int32(th.l.g.BlockSize))
}

// laneRaces is races for x, a volatile access of th, and y, a volatile
// access of another lane of its warp that conflicts with it: such a pair
// is never morally strong (see warpVolatile), so only happens-before
// decides.
func (th *pthread) laneRaces(x, y *prec) bool {
	th.n.pairs++
	return y.e.tid != th.tid && !th.know.knows(y.e)
}

// laneRival reports whether y, a member of a set x's access skips but for
// the warp-synchronous rule, may race with x: it is volatile, and one of
// the two writes.
func laneRival(x, y *prec) bool { return y.order == gpu.Volatile && (x.write || y.write) }
