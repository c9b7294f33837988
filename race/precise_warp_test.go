package race_test

import (
	"fmt"

	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// warpReduce is the pre-Volta warp-synchronous reduction over volatile
// shared memory: each lane adds its partner's slot to its own, halving
// the distance, with a __syncwarp between steps when sync is set.
func warpReduce(sync bool) func(d *gpu.Device) gpu.Kernel {
	return func(d *gpu.Device) gpu.Kernel {
		return func(t *gpu.Thread) {
			s := gpu.Shared[uint32](t, "s", 32)
			r := t.ThreadRank()
			s.StoreVolatile(t, r, uint32(r))
			if sync {
				t.SyncWarp(gpu.FullMask)
			}
			for d := 16; d > 0; d /= 2 {
				if r < d {
					s.StoreVolatile(t, r, s.LoadVolatile(t, r)+s.LoadVolatile(t, r+d))
				}
				if sync {
					t.SyncWarp(gpu.FullMask)
				}
			}
		}
	}
}

// TestPreciseWarpSynchronousVolatile: the warp-synchronous rule. Lanes
// of one warp reading each other's volatile slots with no __syncwarp
// race (missing-syncwarp, with evidence naming __syncwarp); with a
// __syncwarp between steps the reduction is clean.
func TestPreciseWarpSynchronousVolatile(t *testing.T) {
	t.Parallel()
	preciseCase{name: "warp-reduce", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
		evidence: "__syncwarp", kernel: warpReduce(false)}.run(t)
	preciseCase{name: "warp-reduce-synced", blocks: 1, block: 32, kernel: warpReduce(true)}.run(t)
}

// TestPreciseVolatileStrongBetweenWarps: a volatile pair between two
// warps, an intra-warp handoff through release and acquire, and atomics
// between lanes are all clean under the warp-synchronous rule.
func TestPreciseVolatileStrongBetweenWarps(t *testing.T) {
	t.Parallel()
	preciseCase{name: "between-warps", blocks: 1, block: 64, kernel: func(d *gpu.Device) gpu.Kernel {
		x := gpu.Alloc[uint32](d, "x", 1)
		return func(t *gpu.Thread) {
			switch t.ThreadRank() {
			case 0:
				x.StoreVolatile(t, 0, 1)
			case 32:
				x.LoadVolatile(t, 0)
			}
		}
	}}.run(t)
	preciseCase{name: "lane-handoff", blocks: 1, block: 32, kernel: func(d *gpu.Device) gpu.Kernel {
		data, flag := gpu.Alloc[uint32](d, "data", 1), gpu.Alloc[uint32](d, "flag", 1)
		return func(t *gpu.Thread) {
			switch t.ThreadRank() {
			case 0:
				data.Store(t, 0, 7)
				flag.StoreRelease(t, 0, 1, scope.Block)
			case 1:
				for flag.LoadAcquire(t, 0, scope.Block) == 0 {
				}
				data.Load(t, 0)
			}
		}
	}}.run(t)
	preciseCase{name: "lane-atomics", blocks: 1, block: 32, kernel: func(d *gpu.Device) gpu.Kernel {
		x := gpu.Alloc[uint32](d, "x", 1)
		return func(t *gpu.Thread) {
			x.AtomicAdd(t, 0, 1, scope.Block)
			x.AtomicLoad(t, 0, scope.Block)
		}
	}}.run(t)
}

// TestPreciseVolatileOutlivesLaterAtomic: a lane's volatile store stays a
// record after the lane's atomic on the same element, for the atomic is a
// morally strong pair with another lane's volatile store where the
// volatile store is not: lane 2 stores, adds, and raises a relaxed flag;
// lane 30 waits for the flag, which orders nothing, and stores. The two
// volatile stores race, in global memory (device-scope atomics) and in
// shared memory alike.
func TestPreciseVolatileOutlivesLaterAtomic(t *testing.T) {
	t.Parallel()
	for _, shared := range []bool{false, true} {
		preciseCase{name: fmt.Sprintf("shared=%v", shared), blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
			evidence: "__syncwarp", kernel: func(d *gpu.Device) gpu.Kernel {
				g, flag := gpu.Alloc[uint32](d, "x", 1), gpu.Alloc[uint32](d, "flag", 1)
				return func(t *gpu.Thread) {
					x := g
					if shared {
						x = gpu.Shared[uint32](t, "x", 1)
					}
					switch t.Lane() {
					case 2:
						x.StoreVolatile(t, 0, 1)
						x.AtomicAdd(t, 0, 1, scope.Device)
						flag.AtomicStore(t, 0, 1, scope.Device)
					case 30:
						for flag.AtomicLoad(t, 0, scope.Device) == 0 {
						}
						x.StoreVolatile(t, 0, 2)
					}
				}
			}}.run(t)
	}
}

// TestPreciseSyncWarpAtTwoSites: a __syncwarp in each branch of a
// divergent if is one barrier, as on Volta: the half of the warp that
// wrote before its call site is ordered before the half that reads after
// the other, and the launch is no divergence.
func TestPreciseSyncWarpAtTwoSites(t *testing.T) {
	t.Parallel()
	preciseCase{name: "two-sites", blocks: 1, block: 32, kernel: func(d *gpu.Device) gpu.Kernel {
		s, out := gpu.Alloc[int32](d, "s", 16), gpu.Alloc[int32](d, "out", 32)
		return func(t *gpu.Thread) {
			l := t.Lane()
			if l < 16 {
				s.Store(t, l, int32(l+100))
				t.SyncWarp(gpu.FullMask)
				return
			}
			t.SyncWarp(gpu.FullMask)
			out.Store(t, l, s.Load(t, l-16))
		}
	}}.run(t)
}
