package gpu

import (
	"math/bits"
)

// FullMask names every lane of a warp in a member mask, as 0xffffffff does
// for CUDA's 32 lanes. Bits beyond the warp's lanes are ignored, so in a
// partial last warp it names only the lanes that exist.
const FullMask = ^uint64(0)

// SyncWarp is CUDA's __syncwarp(mask): the lanes of mask wait for each
// other. The calling lane must be in mask, and every lane of mask that
// exists must call SyncWarp with the same mask; a lane of mask that exits
// is a divergence (see [DivergenceMode]), and one that waits at another
// collective or mask a mismatch, never a hang. The lanes may call it at
// different call sites (a __syncwarp in each branch of an if): from Volta
// on, PTX lets them meet at different instructions. The collectives that
// exchange values (shuffles, votes, match, reduce) still require one call
// site: two are almost always two different computations.
//
// Under independent thread scheduling lanes are never in lockstep: outside
// warp collectives two lanes of a warp are as unordered as two threads of
// different blocks. In the terminology of [the Go memory model], every
// access a lane of mask makes before SyncWarp "synchronizes before" every
// access any lane of mask makes after it; lanes outside mask are not
// ordered by it. The observer sees one Sync of kind SyncWarp whose Mask is
// the lanes that met.
//
// [the Go memory model]: https://go.dev/ref/mem
//
//go:noinline
func (t *Thread) SyncWarp(mask uint64) {
	t.mark()
	t.warpCollective(opSyncWarp, mask, 0)
}

// ActiveMask is __activemask: the lanes of t's warp that are converged
// with it at this call. It does not synchronize (the observer sees no
// Sync), but the emulator must decide which lanes are converged, and does
// so deterministically: the calling lane waits until every other lane of
// its warp has exited, waits at a barrier or collective, or waits at a
// convergence point (ActiveMask or [CoalescedThreads]); the lanes waiting
// at the same call site are the converged ones. A lane that spins (yields
// at strong or atomic accesses) instead of waiting is not converged, so it
// never holds the answer up, as __activemask never blocks on a GPU.
//
//go:noinline
func ActiveMask(t *Thread) uint64 {
	t.mark() // convergence groups lanes by call site, in every mode
	return t.converge()
}

// converge waits at a convergence point and returns the converged lanes.
func (t *Thread) converge() uint64 {
	t.check()
	b, ex := t.blk, t.blk.exec
	ex.lock()
	if !b.warpOps {
		b.enableWarps()
	}
	w := &b.warps[t.Warp()]
	t.conv = 0
	w.spinning &^= 1 << t.Lane()
	w.conv |= 1 << t.Lane()
	b.conv = append(b.conv, t)
	b.parked++
	t.parked = true
	w.parked |= 1 << t.Lane()
	if b.converge(w, t) {
		ex.unlock()
		return t.conv
	}
	t.at = waitInfo{kind: waitConverge}
	b.checkStall()
	ex.wait(t)
	t.at = waitInfo{}
	t.check()
	return t.conv
}

// converge completes the convergence points of warp w if every lane of it
// has exited or waits: the lanes waiting at each call site form one group.
// It reports whether self was released; self is not woken, as it runs.
// Preconditions: block locked.
func (b *block) converge(w *warpState, self *Thread) bool {
	if w.conv == 0 || (w.parked|w.exited|w.spinning)&w.exists != w.exists {
		return false
	}
	released := false
	keep := b.conv[:0]
	var lanes [64]*Thread // a warp has at most 64 lanes: in stays on the stack
	in := lanes[:0]
	for _, t := range b.conv {
		if &b.warps[t.Warp()] == w {
			in = append(in, t)
		} else {
			keep = append(keep, t)
		}
	}
	b.conv = keep
	for _, t := range in {
		for _, u := range in {
			if u.waitPC == t.waitPC {
				t.conv |= 1 << u.Lane()
			}
		}
	}
	w.conv = 0
	b.rounds++
	for _, t := range in {
		b.unpark(t)
		if t == self {
			released = true
			continue
		}
		b.exec.wakeOne(t)
	}
	return released
}

// rankIn returns the rank of lane among the set lanes of mask.
func rankIn(mask uint64, lane int) int {
	return bits.OnesCount64(mask & (1<<lane - 1))
}

// laneOf returns the lane of the rank-th set lane of mask, or -1.
func laneOf(mask uint64, rank int) int {
	if rank < 0 {
		return -1
	}
	for ; mask != 0; mask &= mask - 1 {
		if rank == 0 {
			return bits.TrailingZeros64(mask)
		}
		rank--
	}
	return -1
}

// spun records that t yielded while spinning. If lanes of its warp wait at
// a convergence point, t no longer holds them up: they converge without
// it, as they would on a GPU, instead of waiting for a spin that may only
// end after they go on.
func (b *block) spun(t *Thread) {
	ex := b.exec
	ex.lock()
	defer ex.unlock()
	if b.l.unscheduled() {
		b.watchResidency()
	}
	if b.l.window > 0 {
		b.watchLivelock(t)
	}
	if !b.warpOps {
		return
	}
	w := &b.warps[t.Warp()]
	w.spinning |= 1 << t.Lane()
	if w.conv != 0 {
		b.converge(w, nil)
	}
}
