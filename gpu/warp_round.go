package gpu

import (
	"fmt"
	"math/bits"
	"slices"
)

// A collOp is a warp-level collective. Lanes meet only in a round of the
// same operation and mask.
type collOp uint8

const (
	opSyncWarp collOp = iota
	opShfl
	opShflUp
	opShflDown
	opShflXor
	opBallot
	opAny
	opAll
	opUni
	opMatchAny
	opMatchAll
	opReduceAdd
	opReduceMin
	opReduceMax
	opReduceAnd
	opReduceOr
	opReduceXor
	opTileSync
	opScan
)

var collNames = [...]string{"syncwarp", "shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "uni",
	"match_any", "match_all", "reduce_add", "reduce_min", "reduce_max", "reduce_and", "reduce_or", "reduce_xor",
	"tile.sync", "cg.reduce"}

// String returns the collective's CUDA-style name, such as "shfl".
func (o collOp) String() string { return collNames[o] }

// A round is one warp collective in progress or done: the lanes it names,
// those that arrived, and the value each contributed. A completed round is
// not changed until every participant has read its result from it: each
// holds it as its coll until its next collective or its exit, and the last
// to let go returns it to its block's free rounds (see letGo), so that a
// collective allocates no round once its warps have run a few.
type round struct {
	op      collOp
	warp    int    // warp index in the block
	mask    uint64 // member lanes that exist
	arrived uint64
	holders int // participants of a completed round that still hold it
	vals    [64]uint64
}

// lane returns the thread of lane l of r's warp.
func (b *block) lane(r *round, l int) *Thread {
	return &b.threads[r.warp*b.l.g.WarpSize+l]
}

// val returns lane's contribution and whether lane took part.
func (r *round) val(lane int) (uint64, bool) {
	if lane < 0 || lane >= 64 || r.arrived&(1<<lane) == 0 {
		return 0, false
	}
	return r.vals[lane], true
}

// A warpState is the collective state of one warp of a block.
type warpState struct {
	exists uint64 // lanes that exist: all, or fewer in a partial last warp
	exited uint64 // lanes whose kernel returned
	parked uint64 // lanes waiting at any barrier or collective
	conv   uint64 // lanes waiting at a convergence point
	// spinning holds lanes that yielded while spinning since they last
	// waited: a convergence point does not wait for them, as a GPU lane
	// spinning on another path is not converged with the others.
	spinning uint64
	rounds   []*round // collectives in progress
}

// enableWarps starts tracking the block's warps, on its first warp-level
// operation, so that barrier-free and SyncThreads-only blocks never pay
// for it: lanes that exited or wait so far are read off the threads.
// Preconditions: block locked.
func (b *block) enableWarps() {
	g := &b.l.g
	if b.warps == nil {
		b.warps = make([]warpState, g.Warps)
	}
	for w := range b.warps {
		n := min(g.WarpSize, g.BlockSize-w*g.WarpSize)
		b.warps[w] = warpState{exists: laneMask(n), rounds: b.warps[w].rounds[:0]}
	}
	b.warpOps, b.slow, b.tiles, b.conv = true, true, b.tiles[:0], b.conv[:0]
	for i := range b.threads {
		t := &b.threads[i]
		w := &b.warps[t.Warp()]
		if t.done {
			w.exited |= 1 << t.Lane()
		}
		if t.parked {
			w.parked |= 1 << t.Lane()
		}
	}
}

// laneMask returns the mask of the low n lanes.
func laneMask(n int) uint64 {
	if n >= 64 {
		return FullMask
	}
	return 1<<n - 1
}

// warpCollective makes t take part in op over the lanes of mask, with
// value v, and returns the completed round. The exported collective that
// calls it marks the call site first.
func (t *Thread) warpCollective(op collOp, mask, v uint64) *round {
	t.check()
	lane := t.Lane()
	if mask&(1<<lane) == 0 {
		t.failf("%v with mask %#x, which does not name the calling lane", op, mask)
	}
	b, ex := t.blk, t.blk.exec
	ex.lock()
	if !b.warpOps {
		b.enableWarps()
	}
	b.letGo(t)
	r, done := b.arriveWarp(t, op, mask, v)
	if done {
		ex.unlock()
		t.check()
		return r
	}
	t.at = waitInfo{kind: waitWarp, op: op, mask: r.mask}
	if f := t.fib; f != nil {
		// The fiber executor's wait (its lock is none), here rather than
		// through ex.wait and park: resumed, the lane returns through one
		// frame fewer to its kernel, each a return the processor
		// mispredicts after a coroutine switch (see Thread.SyncThreads).
		// It hands the block on as a barrier does (see fiber.await).
		f.parked = true
		t.resume(f.await(t))
	} else {
		ex.wait(t)
		t.check()
	}
	t.at = waitInfo{}
	return t.coll
}

// arriveWarp adds t to the round of op and mask in its warp, creating it if
// needed, and reports whether t completed it. If not, t is parked: the
// caller must wait. Preconditions: block locked.
//
// A lane joins only a round of its own operation and mask. A round of
// another mask that names the lane is not a mismatch by itself: the lane
// may reach it later, as lanes 0-7 reach a full-warp reduce while lanes
// 8-15 still complete their 8-lane one. It is one when the lane and a
// lane waiting in that round name each other: each then waits for the
// other and neither round can complete.
func (b *block) arriveWarp(t *Thread, op collOp, mask, v uint64) (*round, bool) {
	w := &b.warps[t.Warp()]
	lane := t.Lane()
	bit := uint64(1) << lane
	mask &= w.exists
	if p := w.blocking(bit, mask, op); p != nil {
		b.mismatchWarp(t, p, op, mask)
		return p, true
	}
	r := w.roundOf(op, mask)
	if r == nil {
		r = b.newRound(op, t.Warp(), mask)
		w.rounds = append(w.rounds, r)
	}
	r.arrived |= bit
	r.vals[lane] = v
	if r.arrived|w.exited&r.mask == r.mask {
		b.completeWarp(w, r, t)
		return r, true
	}
	b.park(t)
	return r, false
}

// newRound returns an empty round of op over mask in warp w, one of the
// block's free rounds if it has one. Preconditions: block locked.
func (b *block) newRound(op collOp, w int, mask uint64) *round {
	n := len(b.freeRounds)
	if n == 0 {
		return &round{op: op, warp: w, mask: mask}
	}
	r := b.freeRounds[n-1]
	b.freeRounds = b.freeRounds[:n-1]
	r.op, r.warp, r.mask, r.arrived, r.holders = op, w, mask, 0, 0
	return r
}

// letGo ends t's hold on the round it last completed, which it has read:
// the last participant to let go returns the round to the block's free
// rounds. Every participant lets go under the block's lock, after its
// reads, and a round is reused under that lock, so each read of a round
// synchronizes before the writes that reuse it. Preconditions: block
// locked.
func (b *block) letGo(t *Thread) {
	r := t.coll
	if r == nil {
		return
	}
	t.coll = nil
	if r.holders--; r.holders == 0 {
		b.freeRounds = append(b.freeRounds, r)
	}
}

// roundOf returns the round in progress of op over mask, or nil.
func (w *warpState) roundOf(op collOp, mask uint64) *round {
	for _, p := range w.rounds {
		if p.mask == mask && p.op == op {
			return p
		}
	}
	return nil
}

// blocking returns a round in progress, of another operation or mask than
// op over mask, that waits for the lane bit while one of its waiting lanes
// is named by mask, or nil: the lane and that one would wait for each
// other forever.
func (w *warpState) blocking(bit, mask uint64, op collOp) *round {
	for _, p := range w.rounds {
		if p.mask&bit != 0 && p.arrived&mask != 0 && (p.mask != mask || p.op != op) {
			return p
		}
	}
	return nil
}

// completeWarp ends round r: it checks for divergence, reports the round
// to the observer and wakes the waiting lanes. self is the lane that
// completed it by arriving, or nil if an exit did.
func (b *block) completeWarp(w *warpState, r *round, self *Thread) {
	w.rounds = slices.DeleteFunc(w.rounds, func(p *round) bool { return p == r })
	b.rounds++
	if b.l.checks() {
		b.checkWarp(r)
	}
	by := self
	if by == nil {
		by = b.lane(r, bits.TrailingZeros64(r.arrived))
	}
	if by.obs != nil {
		gw := b.id*b.l.g.Warps + r.warp
		b.l.syncObserved(by, Sync{Kind: SyncWarp, Block: b.id, Warp: gw, Mask: r.arrived, Op: r.op.String()})
	}
	r.holders = bits.OnesCount64(r.arrived)
	for m := r.arrived; m != 0; m &= m - 1 {
		t := b.lane(r, bits.TrailingZeros64(m))
		t.coll = r
		if t != self {
			b.unpark(t)
			b.exec.wakeOne(t)
		}
	}
}

// checkWarp reports lanes of r that exited, and, for a collective that
// exchanges values, lanes that arrived at another call site than the
// first. A __syncwarp (or a tile's Sync of up to a warp) meets its lanes
// from any call site, as bar.warp.sync does from Volta on (PTX asked for
// one instruction only on sm_6x and earlier): a __syncwarp in each branch
// of a divergent if is one barrier. Value-exchanging collectives keep
// the rule: lanes of one shuffle, vote, match or reduce at two call sites
// are almost always two different computations (a reduce in one branch,
// a scan in the other), whose lanes would read each other's operands.
func (b *block) checkWarp(r *round) {
	exited := r.mask &^ r.arrived
	var other uint64
	if r.op != opSyncWarp && r.op != opTileSync {
		other = b.otherSites(r)
	}
	if exited == 0 && other == 0 {
		return
	}
	base := r.warp * b.l.g.WarpSize
	pc := func(l int) callSite { return b.lane(r, l).waitPC }
	e := &DivergenceError{
		Block: b.id, Warp: r.warp, Barrier: fmt.Sprintf("%v(mask %#x)", r.op, r.mask),
		Site: b.l.d.site(pc(bits.TrailingZeros64(r.arrived))), Waiting: laneRanks(base, r.arrived&^other), Exited: laneRanks(base, exited),
	}
	for m := other; m != 0; {
		l := bits.TrailingZeros64(m)
		same := uint64(0)
		for n := m; n != 0; n &= n - 1 {
			if k := bits.TrailingZeros64(n); pc(k) == pc(l) {
				same |= 1 << k
			}
		}
		e.Elsewhere = append(e.Elsewhere, Divergent{What: r.op.String(), Site: b.l.d.site(pc(l)), Threads: laneRanks(base, same)})
		m &^= same
	}
	b.diverged(e)
}

// otherSites returns the lanes of r that arrived at another call site
// than its first lane.
func (b *block) otherSites(r *round) uint64 {
	first := b.lane(r, bits.TrailingZeros64(r.arrived)).waitPC
	var other uint64
	for m := r.arrived; m != 0; m &= m - 1 {
		if l := bits.TrailingZeros64(m); b.lane(r, l).waitPC != first {
			other |= 1 << l
		}
	}
	return other
}

// mismatchWarp reports lanes that name each other in collectives of
// different masks or operations: they can never meet.
func (b *block) mismatchWarp(t *Thread, p *round, op collOp, mask uint64) {
	base := p.warp * b.l.g.WarpSize
	first := bits.TrailingZeros64(p.arrived)
	b.mismatch(&DivergenceError{
		Block: b.id, Warp: p.warp, Barrier: fmt.Sprintf("%v(mask %#x)", p.op, p.mask),
		Site: b.l.d.site(b.lane(p, first).waitPC), Waiting: laneRanks(base, p.arrived),
		Elsewhere: []Divergent{{What: fmt.Sprintf("%v(mask %#x)", op, mask), Site: b.l.d.site(t.waitPC), Threads: []int{t.rank}}},
	})
}

// laneRanks returns the block ranks of the lanes in m of the warp starting
// at rank base.
func laneRanks(base int, m uint64) []int {
	var r []int
	for ; m != 0; m &= m - 1 {
		r = append(r, base+bits.TrailingZeros64(m))
	}
	return r
}

// exitWarp records that t exited and, unless the launch stopped,
// completes the rounds that were waiting only for it. Preconditions:
// block locked.
func (b *block) exitWarp(t *Thread, stopped bool) {
	w := &b.warps[t.Warp()]
	bit := uint64(1) << t.Lane()
	w.exited |= bit
	b.letGo(t)
	if stopped {
		return
	}
	for i := 0; i < len(w.rounds); {
		r := w.rounds[i]
		if r.mask&bit != 0 && r.arrived|w.exited&r.mask == r.mask && r.arrived != 0 {
			b.completeWarp(w, r, nil)
			continue
		}
		i++
	}
	if len(b.tiles) > 0 {
		b.exitTiles(t)
	}
	if w.conv != 0 {
		b.converge(w, nil)
	}
}

// releaseAll makes every thread waiting at a warp collective, tile sync or
// convergence point runnable with wake, after the launch stopped, so that
// each sees the stop and unwinds. Preconditions: block locked.
func (b *block) releaseAll(wake func(*Thread)) {
	if !b.warpOps {
		return
	}
	for i := range b.warps {
		w := &b.warps[i]
		for _, r := range w.rounds {
			for m := r.arrived; m != 0; m &= m - 1 {
				wake(b.lane(r, bits.TrailingZeros64(m)))
			}
		}
		w.rounds, w.conv = w.rounds[:0], 0
	}
	for _, r := range b.tiles {
		for _, t := range r.waiters {
			wake(t)
		}
	}
	for _, t := range b.conv {
		wake(t)
	}
	b.tiles, b.conv = b.tiles[:0], b.conv[:0]
}

// unparkOutside counts t, woken from a grid sync, as running again.
// Preconditions: block locked.
func (b *block) unparkOutside(t *Thread) {
	t.parked = false
	if b.warpOps {
		b.warps[t.Warp()].parked &^= 1 << t.Lane()
	}
}
