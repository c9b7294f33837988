package iguard

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// Warp coalescing (iGUARD, SOSP'21, §6.5). On a GPU, iGUARD lets the
// lowest active lane of a warp whose lanes all load, or all update with the
// same atomic, one word check once for all of them. Lanes here are not in
// lockstep: the Fibers executor runs them one after another, the Goroutines
// executor at once. So coalescing is in time instead: a lane skips its
// check when the entry's last update was the check of another lane of its
// warp that this lane's check would repeat exactly.
//
// The entry's coalescing key says so. Its updater sets it, under the
// entry's lock, only when
//
//   - the access was a load, or an atomic read-modify-write other than the
//     CAS and exchange that lock inference watches, of warp scope or wider,
//     within one granule, by a thread holding no locks;
//   - the check found no race and left the entry's flags and lockset as they
//     were, so a repeat of it meets the same state and changes nothing
//     but the last accessor;
//   - for a load, the last writer is not in the warp (program order among
//     lanes depends on the lane).
//
// The key packs the warp, the operation, order and scope, and the block
// barrier, grid barrier and tile sync epochs of the access; a lane of the
// same warp whose access has the same key (and, with history, the same
// call path, hence the same site) would check against the same last
// writer (a load) or against that lane's atomic (an atomic, which two
// atomics whose scope covers the warp never race with), with the same
// epochs, and reach the same verdict. A lane's own fence marks are never
// read by its check. The skipped lane is not recorded as last accessor, as
// in iGUARD: later checks meet its warp-mate instead, with equal epochs and
// site. They can differ only if the two lanes later fence differently,
// iGUARD's residual caveat; the configuration-equivalence tests over the
// whole suite and the corpus (config_test.go) check that no verdict moves.

// coalesceKey returns the coalescing key of access c by th covering
// granules first..last, or 0 when it may not be coalesced.
func coalesceKey(th *thread, c *access, first, last uint64) uint64 {
	r := &c.rec
	switch {
	case first != last || !c.locks.empty():
		return 0
	case r.op == gpu.OpStore || r.op == gpu.OpCAS || r.op == gpu.OpExch:
		return 0
	case r.op.IsRMW() && r.scope < scope.Warp:
		return 0
	case th.gwarp >= keyWarps || r.bar >= 1<<keyBarBits || r.grid >= 1<<keyGridBits || r.tile >= 1<<keyTileBits:
		return 0
	}
	epochs := uint64(r.bar)<<(keyGridBits+keyTileBits) | uint64(r.grid)<<keyTileBits | uint64(r.tile)
	return uint64(th.gwarp+1)<<keyWarpShift | classOf(r.op, r.order, r.scope)<<keyEpochBits | epochs
}

// The coalescing key's layout: the warp's global id plus one in bits
// 42..62 (0 is no key), the access's class (classOf) in 32..41, and its
// epochs below: the block barrier's in 14..31, the grid barrier's in 6..13
// and the tile sync's in 0..5. An access whose warp or epochs do not fit
// gets no key and is checked.
const (
	keyTileBits  = 6
	keyGridBits  = 8
	keyBarBits   = 18
	keyEpochBits = keyTileBits + keyGridBits + keyBarBits
	keyWarpShift = keyEpochBits + stampClassBits
	keyWarps     = 1<<(63-keyWarpShift) - 1
)

// coalesces reports whether an access with key and call path would repeat
// the check of granule g's last update by another lane. Preconditions: g
// has its entry (see first.go). When accesses
// carry call paths (history, or the central checker), an update in
// progress zeroes the key before it changes the path, and the key is read
// on both sides of the path, so two equal keys mean the path belongs to
// an update with that key. Otherwise the path is always nil and the key
// changes only at the end of an update: a reader that sees it during one
// sees the last completed update's key, as if it had read just before.
func (s *shadow) coalesces(g, key uint64, path *shared.SiteSlot) bool {
	e, x := s.at(g)
	return e.ckey.Load() == key && x.pathOf() == path && e.ckey.Load() == key
}

// keyAfter returns the key an update with key leaves in e: key when the
// update may be repeated by a warp-mate (see above), else 0. The update
// changed the entry's flags from before, and its lockset unless
// sameLocks.
func (e *meta) keyAfter(key uint64, c *access, k kind.Kind, before flags, sameLocks bool) uint64 {
	if key == 0 || k != 0 || e.flags != before || !sameLocks {
		return 0
	}
	if !c.store && e.flags&fWriter != 0 && c.th.sameWarp(e.w.gid()) {
		return 0
	}
	return key
}
