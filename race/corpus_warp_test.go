package race_test

import (
	"fmt"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// warpCases are the corpus cases that need warp collectives and
// cooperative groups.
func warpCases() []corpusCase {
	return []corpusCase{
		reductionTail(func(t *gpu.Thread) { t.SyncWarp(gpu.FullMask) }),
		gridSync(),
		halfWarps(false), halfWarps(true),
		shuffleOrders(),
		wideTile(false), wideTile(true),
		warpLeaderLock(),
	}
}

// gridSync is blockSyncForGrid's twin: the cooperative grid sync orders
// every block's writes before every block's reads.
func gridSync() corpusCase {
	c := blockSyncForGrid()
	c.name, c.expect = "grid-sync", nil
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		x := gpu.Alloc[int32](d, "x", 64)
		y := gpu.Alloc[int32](d, "y", 64)
		return func(t *gpu.Thread) {
			i := t.GlobalID()
			x.Store(t, i, int32(i))
			gpu.ThisGrid(t).Sync()
			y.Store(t, i, x.Load(t, (i+32)%64))
		}, outputIf(true, y, func(i int) int32 { return int32((i + 32) % 64) })
	}
	return c
}

// halfWarps: each half of a warp syncs with its own half mask
// (__syncwarp(0xffff) and __syncwarp(0xffff0000)), then each lane reads a
// word its neighbour wrote: in its own half (ordered), or in the other
// half (not ordered: a partial-mask __syncwarp orders only its lanes,
// where iGUARD's per-warp counter would let it pass).
func halfWarps(within bool) corpusCase {
	c := corpusCase{name: "half-warp-syncwarp-across", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp)}
	if within {
		c.name, c.expect = "half-warp-syncwarp-within", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		out := gpu.Alloc[int32](d, "out", 32)
		other := func(l int) int {
			if within {
				return l ^ 1
			}
			return l ^ 16
		}
		return func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 32)
			l := t.Lane()
			s.Store(t, l, int32(l))
			t.SyncWarp(uint64(0xffff) << (l & 16))
			out.Store(t, l, s.Load(t, other(l)))
		}, outputIf(within, out, func(i int) int32 { return int32(other(i)) })
	}
	return c
}

// shuffleOrders: a warp shuffle is a collective of every lane named in its
// mask, and the runtime documents it as ordering their accesses.
func shuffleOrders() corpusCase {
	// Precise: a shuffle exchanges values and orders no memory.
	return corpusCase{name: "shuffle-orders", blocks: 1, block: 32,
		precise: kinds(race.MissingSyncwarp), preciseDiffers: true,
		kernel: func(d *gpu.Device) (gpu.Kernel, func() error) {
			out := gpu.Alloc[int32](d, "out", 32)
			return func(t *gpu.Thread) {
				s := gpu.Shared[int32](t, "s", 32)
				l := t.Lane()
				s.Store(t, l, int32(l))
				v := gpu.ShflSync(t, gpu.FullMask, int32(l), 0, 32)
				out.Store(t, l, s.Load(t, 31-l)+v)
			}, outputIf(true, out, func(i int) int32 { return int32(31 - i) })
		}}
}

// wideTile: a 64-thread tile spans two warps; its Sync orders them, so
// thread r may read what thread r^32 wrote. Without the sync it races.
func wideTile(sync bool) corpusCase {
	c := corpusCase{name: "wide-tile-no-sync", blocks: 1, block: 128, expect: kinds(race.MissingBlockFence)}
	if sync {
		c.name, c.expect = "wide-tile-sync", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		out := gpu.Alloc[int32](d, "out", 128)
		return func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 128)
			r := t.ThreadRank()
			s.Store(t, r, int32(r))
			if sync {
				gpu.TiledPartition(t, 64).Sync()
			}
			out.Store(t, r, s.Load(t, r^32))
		}, outputIf(sync, out, func(i int) int32 { return int32(i ^ 32) })
	}
	return c
}

// warpLeaderLock is the lock-per-warp protocol under ITS: lane 0 takes a
// device lock for its warp, __syncwarp hands the critical section to every
// lane, each lane updates its own counter, all fence, and lane 0 releases.
// Every warp of two blocks does this on the same counters, shifted so that
// each word is updated by lane 0 of one warp and other lanes of the rest,
// which per-thread lock tables would call unprotected. The lock is
// held by the warp (iGUARD's warp lock table), so the lanes' accesses are
// protected although only lane 0 took it.
func warpLeaderLock() corpusCase {
	// Every lane fences (fence.sc) after its write, and the next holder's
	// lane 0 fences after taking the lock: the lock orders the two
	// fences, so the fence.sc order orders the writes before the next
	// holder's, and the exact family agrees.
	return corpusCase{name: "warp-leader-lock", blocks: 2, block: 64,
		kernel: func(d *gpu.Device) (gpu.Kernel, func() error) {
			lock := gpu.Alloc[int32](d, "lock", 1)
			count := gpu.Alloc[int32](d, "count", 32)
			return func(t *gpu.Thread) {
					l := t.Lane()
					if l == 0 {
						for lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
						}
						t.ThreadFence()
					}
					t.SyncWarp(gpu.FullMask)
					w := (l + t.GlobalWarp()) % 32 // each word is some warp's lane 0 word
					count.Store(t, w, count.Load(t, w)+1)
					t.ThreadFence()
					t.SyncWarp(gpu.FullMask)
					if l == 0 {
						lock.AtomicExch(t, 0, 0, scope.Device)
					}
				}, func() error {
					for i, v := range count.Host() {
						if v != 4 {
							return fmt.Errorf("count[%d] = %d, want 4", i, v)
						}
					}
					return nil
				}
		}}
}

func TestNoRaceReductionTailSyncwarp(t *testing.T)  { t.Parallel(); warpCases()[0].run(t) }
func TestNoRaceGridSync(t *testing.T)               { t.Parallel(); gridSync().run(t) }
func TestRaceHalfWarpSyncwarpAcross(t *testing.T)   { t.Parallel(); halfWarps(false).run(t) }
func TestNoRaceHalfWarpSyncwarpWithin(t *testing.T) { t.Parallel(); halfWarps(true).run(t) }
func TestNoRaceShuffleOrders(t *testing.T)          { t.Parallel(); shuffleOrders().run(t) }
func TestRaceWideTileNoSync(t *testing.T)           { t.Parallel(); wideTile(false).run(t) }
func TestNoRaceWideTileSync(t *testing.T)           { t.Parallel(); wideTile(true).run(t) }
func TestNoRaceWarpLeaderLock(t *testing.T)         { t.Parallel(); warpLeaderLock().run(t) }
