package gpu

import (
	"math/bits"
)

// A Coalesced is cooperative groups' coalesced_group: lanes of one warp,
// ranked in lane order, that the emulator found converged (see
// [CoalescedThreads]) or that a partition split from such a group.
type Coalesced struct {
	t    *Thread
	mask uint64
	// tile and tiles are MetaGroupRank and MetaGroupSize less 1, both 0
	// but in a group that Partition cut.
	tile, tiles int32
}

// CoalescedThreads is cg::coalesced_threads(): the group of lanes of t's
// warp converged with it here. The emulator decides convergence
// deterministically, as [ActiveMask] documents: the lanes that wait at the
// same call site once every other lane of the warp has exited or waits.
// So the warp-aggregated atomic idiom, `if pred { g := CoalescedThreads(t)
// ... }`, groups exactly the lanes whose pred held.
//
//go:noinline
func CoalescedThreads(t *Thread) Coalesced {
	t.mark() // convergence groups lanes by call site, in every mode
	return Coalesced{t: t, mask: t.converge()}
}

// Size returns the number of lanes in the group.
func (g Coalesced) Size() int { return bits.OnesCount64(g.mask) }

// ThreadRank returns the caller's rank in the group: how many of its
// lanes are below the caller's.
func (g Coalesced) ThreadRank() int { return rankIn(g.mask, g.t.Lane()) }

// Mask returns the group's lanes.
func (g Coalesced) Mask() uint64 { return g.mask }

// MetaGroupRank is the rank of the group among the groups [Coalesced.Partition]
// cut its parent into, as cooperative groups' headers define it for a
// tiled partition of a coalesced group (the parent's rank of the caller
// divided by the tile size); 0 for a group no partition cut.
func (g Coalesced) MetaGroupRank() int { return int(g.tile) }

// MetaGroupSize is how many groups [Coalesced.Partition] cut the group's
// parent into (the last one possibly smaller); 1 for a group no partition
// cut.
func (g Coalesced) MetaGroupSize() int { return int(g.tiles) + 1 }

// Sync is coalesced_group::sync, [Thread.SyncWarp] of the group's lanes.
//
//go:noinline
func (g Coalesced) Sync() {
	g.t.mark()
	g.t.warpCollective(opSyncWarp, g.mask, 0)
}

func (g Coalesced) warpGroup(string) (*Thread, uint64) { return g.t, g.mask }

func (g Coalesced) fromRank(r int) int { return laneOf(g.mask, r) }

func (g Coalesced) width() int { return 0 }

func (g Coalesced) rankOf(lane int) int { return rankIn(g.mask, lane) }

// Partition is cg::tiled_partition(g, size) of a coalesced group: it cuts
// the group, in rank order, into groups of size consecutive ranks (the
// last one possibly smaller) and returns the caller's, whose
// MetaGroupRank and MetaGroupSize place it among them. size must be a
// power of two.
func (g Coalesced) Partition(size int) Coalesced {
	if size < 1 || bits.OnesCount(uint(size)) != 1 {
		g.t.failf("tiled_partition of a coalesced group into %d-thread tiles; want a power of two", size)
	}
	first := g.ThreadRank() / size * size
	var m uint64
	for r := first; r < first+size; r++ {
		if l := laneOf(g.mask, r); l >= 0 {
			m |= 1 << l
		}
	}
	return Coalesced{t: g.t, mask: m, tile: int32(first / size), tiles: int32((g.Size()+size-1)/size - 1)}
}

// LabeledPartition is cg::labeled_partition(g, label): it splits the
// group into the lanes passing equal labels and returns the caller's part.
// It is a collective of the whole group, like [MatchAnySync].
//
//go:noinline
func LabeledPartition[G WarpGroup](g G, label uint64) Coalesced {
	t, mask := g.warpGroup("labeled_partition")
	t.mark()
	r := t.warpCollective(opMatchAny, mask, label)
	return Coalesced{t: t, mask: matching(r, label)}
}

// BinaryPartition is cg::binary_partition(g, pred): LabeledPartition with
// a boolean label.
//
//go:noinline
func BinaryPartition[G WarpGroup](g G, pred bool) Coalesced {
	t, mask := g.warpGroup("binary_partition")
	t.mark()
	r := t.warpCollective(opBallot, mask, b2u(pred))
	m := votes(r)
	if !pred {
		m = r.arrived &^ m
	}
	return Coalesced{t: t, mask: m}
}
