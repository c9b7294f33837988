package gpu_test

import (
	"context"
	"fmt"
	"math/bits"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

func TestThisBlock(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		block := gpu.Dim3{X: 4, Y: 3, Z: 2}
		out := gpu.Alloc[int32](d, "out", 2*24*4)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: block, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			b := gpu.ThisBlock(t)
			s := gpu.Shared[int32](t, "s", 24)
			s.Store(t, b.ThreadRank(), int32(b.ThreadRank()))
			b.Sync()
			g := t.GlobalID()
			out.Store(t, 4*g, s.Load(t, (b.ThreadRank()+1)%b.Size()))
			out.Store(t, 4*g+1, int32(b.Size()))
			out.Store(t, 4*g+2, int32(b.Dim().Y))
			out.Store(t, 4*g+3, int32(b.GroupIndex().X*100+b.ThreadIndex().Z))
		}))
		h := out.Host()
		for g := range 48 {
			r := g % 24
			require.Equal(t, []int32{int32((r + 1) % 24), 24, 3, int32(g/24*100 + r/12)}, h[4*g:4*g+4])
		}
	})
}

func TestTiles(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const bs = 64
		type res struct{ rank, size, meta, metaSize, shfl, down, up, xor, sum, incl, excl int32 }
		for _, size := range []int{1, 2, 4, 8, 16, 32} {
			got := make([]res, bs)
			require.NoError(t, launch1D(d, ex, 1, bs, func(t *gpu.Thread) {
				g := gpu.TiledPartition(t, size)
				v := int32(t.ThreadRank())
				got[t.ThreadRank()] = res{
					int32(g.ThreadRank()), int32(g.Size()), int32(g.MetaGroupRank()), int32(g.MetaGroupSize()),
					gpu.Shfl(g, v, 1), gpu.ShflDown(g, v, 1), gpu.ShflUp(g, v, 1), gpu.ShflXor(g, v, 1),
					gpu.Reduce(g, v, gpu.Add[int32]), gpu.InclusiveScan(g, v, gpu.Add[int32]), gpu.ExclusiveScan(g, v, gpu.Add[int32]),
				}
				g.Sync()
			}))
			for r := range bs {
				base, k := r/size*size, r%size
				src := func(j int) int32 {
					if j < 0 || j >= size {
						return int32(r)
					}
					return int32(base + j)
				}
				sum, incl := int32(0), int32(0)
				for j := range size {
					sum += int32(base + j)
					if j <= k {
						incl += int32(base + j)
					}
				}
				want := res{int32(k), int32(size), int32(r / size), int32(bs / size),
					int32(base + 1%size), src(k + 1), src(k - 1), src(k ^ 1), sum, incl, incl - int32(r)}
				require.Equal(t, want, got[r], "size %d rank %d", size, r)
			}
		}
	})
}

func TestStaticTileAndVotes(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	got := make([][4]uint64, 64)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 64, func(t *gpu.Thread) {
		g := gpu.StaticTile[gpu.Size8](t)
		pred := t.ThreadRank()%3 == 0
		m, ok := gpu.MatchAll(g, int32(t.ThreadRank()/8))
		got[t.ThreadRank()] = [4]uint64{gpu.Ballot(g, pred), b2u(gpu.Any(g, pred)) | b2u(gpu.All(g, true))<<1, gpu.MatchAny(g, int32(t.ThreadRank()%2)), m | b2u(ok)<<32}
	}))
	for r := range 64 {
		var ballot uint64
		for k := range 8 {
			if (r/8*8+k)%3 == 0 {
				ballot |= 1 << k
			}
		}
		want := [4]uint64{ballot, b2u(ballot != 0) | 2, 0x55 << (r % 2), 0xff | 1<<32}
		require.Equal(t, want, got[r], "rank %d", r)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func TestTilePartitionOfTile(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	got := make([][3]int, 64)
	require.NoError(t, launch1D(d, gpu.Goroutines, 1, 64, func(t *gpu.Thread) {
		sub := gpu.TiledPartition(t, 32).Partition(4)
		got[t.ThreadRank()] = [3]int{sub.ThreadRank(), sub.MetaGroupRank(), sub.MetaGroupSize()}
		sub.Sync()
	}))
	for r := range 64 {
		require.Equal(t, [3]int{r % 4, r % 32 / 4, 8}, got[r])
	}
}

// TestCoalescedPartitionMeta cuts the 11 lanes of a warp whose lane is a
// multiple of 3 into tiles of 4: ranks 0-3, 4-7 and 8-10 are tiles 0, 1
// and 2 of 3, as cooperative groups' tiled_partition of a coalesced group
// numbers them; the group CoalescedThreads returns is tile 0 of 1.
func TestCoalescedPartitionMeta(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	got := make([][5]int, 32)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) {
		if t.Lane()%3 != 0 {
			return
		}
		g := gpu.CoalescedThreads(t)
		sub := g.Partition(4)
		got[t.Lane()] = [5]int{sub.ThreadRank(), sub.MetaGroupRank(), sub.MetaGroupSize(), g.MetaGroupRank(), g.MetaGroupSize()}
	}))
	for l := 0; l < 32; l += 3 {
		r := l / 3
		require.Equal(t, [5]int{r % 4, r / 4, 3, 0, 1}, got[l], "lane %d", l)
	}
}

// TestGroupShuffleDeltaBits checks that a tile's shuffles read a delta as
// the intrinsics do, by its low five bits (33 moves one rank, -1 moves
// 31, past an 8-thread tile's end), as a coalesced group of the whole
// warp does, while a smaller coalesced group counts delta in its ranks
// and keeps the caller's value for a negative one.
func TestGroupShuffleDeltaBits(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		got := make([][6]int32, 32)
		require.NoError(t, launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			tile, v := gpu.TiledPartition(t, 8), int32(t.Lane())
			r := &got[t.Lane()]
			r[0] = gpu.ShflDown(tile, v, 33)
			r[1] = gpu.ShflDownSync(t, tile.Mask(), v, 33, 8)
			r[2] = gpu.ShflUp(tile, v, -1)
			r[3] = gpu.ShflDown(gpu.CoalescedThreads(t), v, 33)
			if t.Lane()%2 == 0 {
				g := gpu.CoalescedThreads(t)
				r[4], r[5] = gpu.ShflDown(g, v, 1), gpu.ShflUp(g, v, -1)
			}
		}))
		for l := range int32(32) {
			down := l + 1
			if l%8 == 7 {
				down = l
			}
			require.Equal(t, got[l][1], got[l][0], "lane %d: tile and intrinsic", l)
			require.Equal(t, down, got[l][0], "lane %d", l)
			require.Equal(t, l, got[l][2], "lane %d: up by 31 leaves the tile", l)
			require.Equal(t, min(l+1, 31), got[l][3], "lane %d: a whole warp's coalesced group", l)
			if l%2 == 0 {
				require.Equal(t, [2]int32{min(l+2, 30), l}, [2]int32{got[l][4], got[l][5]}, "lane %d: half a warp", l)
			}
		}
	})
}

// TestTileShufflesInPartialWarp reduces a 16-thread tile of a 40-thread
// block by ShflDown and by ShflXor: the tile of ranks 32-47 holds only
// 32-39, and a shuffle from a rank past them keeps the caller's own
// value, as past the tile's end, so both agree with Reduce; Shfl from
// such a rank keeps it too.
func TestTileShufflesInPartialWarp(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		down, xor, red := gpu.Alloc[int32](d, "down", 40), gpu.Alloc[int32](d, "xor", 40), gpu.Alloc[int32](d, "reduce", 40)
		shfl := gpu.Alloc[int32](d, "shfl", 40)
		require.NoError(t, launch1D(d, ex, 1, 40, func(t *gpu.Thread) {
			tile := gpu.TiledPartition(t, 16)
			v := int32(100 + t.ThreadRank())
			dv, xv := v, v
			for s := tile.Size() / 2; s > 0; s /= 2 {
				dv = min(dv, gpu.ShflDown(tile, dv, s))
				xv = min(xv, gpu.ShflXor(tile, xv, s))
			}
			down.Store(t, t.ThreadRank(), dv)
			xor.Store(t, t.ThreadRank(), xv)
			red.Store(t, t.ThreadRank(), gpu.Reduce(tile, v, gpu.Min[int32]))
			shfl.Store(t, t.ThreadRank(), gpu.Shfl(tile, v, 12))
		}))
		require.Equal(t, int32(112), shfl.Host()[0], "rank 12 of a whole tile")
		require.Equal(t, int32(132), shfl.Host()[32], "rank 12 of the partial tile holds no thread: the caller's own")
		require.Equal(t, int32(139), shfl.Host()[39])
		require.Equal(t, int32(132), down.Host()[32], "the tile's first thread holds the minimum")
		for r := 32; r < 40; r++ {
			require.Equal(t, int32(132), xor.Host()[r], "rank %d", r)
			require.Equal(t, int32(132), red.Host()[r], "rank %d", r)
		}
		require.Equal(t, int32(116), down.Host()[16], "a whole tile is unchanged")
	})
}

func TestLargeTiles(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		rec := &syncRecorder{}
		bad := gpu.Alloc[int32](d, "bad", 1)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 256}, Executor: ex, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			g := gpu.TiledPartition(t, 128)
			s := gpu.Shared[int32](t, "s", 256)
			r := t.ThreadRank()
			for k := range 4 {
				s.Store(t, r, int32(k+r))
				g.Sync()
				peer := r&^127 | (r+k+1)&127
				if s.Load(t, peer) != int32(k+peer) {
					bad.Store(t, 0, 1)
				}
				g.Sync()
			}
		}))
		require.Zero(t, bad.Host()[0])
		require.Equal(t, 2*2*8, rec.count(gpu.SyncTile, "tile.sync"))
		for _, s := range rec.syncs {
			require.Equal(t, 128, s.Count)
			require.Contains(t, []int{0, 128}, s.First)
		}
	})
}

func TestTileMisuse(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	cases := map[string]gpu.Kernel{
		"tiled_partition into 3-thread tiles":       func(t *gpu.Thread) { gpu.TiledPartition(t, 3) },
		"tiled_partition into 128-thread tiles":     func(t *gpu.Thread) { gpu.TiledPartition(t, 128) },
		"leaves a partial tile":                     func(t *gpu.Thread) { gpu.TiledPartition(t, 64) },
		"shfl on a 64-thread tile":                  func(t *gpu.Thread) { gpu.Shfl(gpu.TiledPartition(t, 32).Partition(64), int32(1), 0) },
		"ballot on a 64-thread tile: tiles larger ": func(t *gpu.Thread) { gpu.Ballot(gpu.TiledPartition(t, 64), true) },
	}
	for want, k := range cases {
		threads := 96
		if want == "ballot on a 64-thread tile: tiles larger " {
			threads = 128
		}
		if want == "shfl on a 64-thread tile" {
			want = "tiled_partition of a 32-thread tile into 64-thread tiles"
		}
		require.ErrorContains(t, launch1D(d, gpu.Fibers, 1, threads, k), want)
	}
}

// TestCoalescedAggregation is the warp-aggregated atomic idiom: the lanes
// whose predicate holds elect a leader, which makes one atomic for all,
// and share its result by shuffle.
func TestCoalescedAggregation(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		counter := gpu.Alloc[int32](d, "counter", 1)
		slots := gpu.Alloc[int32](d, "slots", 256)
		sizes := make([]int, 256)
		require.NoError(t, launch1D(d, ex, 2, 128, func(t *gpu.Thread) {
			if t.GlobalID()%3 != 0 {
				return
			}
			g := gpu.CoalescedThreads(t)
			sizes[t.GlobalID()] = g.Size()
			var base int32
			if g.ThreadRank() == 0 {
				base = counter.AtomicAdd(t, 0, int32(g.Size()), scope.Device)
			}
			base = gpu.Shfl(g, base, 0)
			slots.Store(t, int(base)+g.ThreadRank(), int32(t.GlobalID()))
		}))
		require.Equal(t, int32(86), counter.Host()[0])
		seen := map[int32]bool{}
		for _, v := range slots.Host()[:86] {
			require.Zero(t, v%3)
			require.False(t, seen[v], "slot given twice")
			seen[v] = true
		}
		for g := 0; g < 256; g += 3 {
			want := 0
			for l := g &^ 31; l < g&^31+32; l++ {
				if l%3 == 0 {
					want++
				}
			}
			require.Equal(t, want, sizes[g], "thread %d", g)
		}
	})
}

func TestLabeledAndBinaryPartition(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		got := make([][4]int, 32)
		require.NoError(t, launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			tile := gpu.TiledPartition(t, 32)
			lp := gpu.LabeledPartition(tile, uint64(t.Lane()%4))
			bp := gpu.BinaryPartition(tile, t.Lane() < 5)
			sum := gpu.Reduce(lp, int32(t.Lane()), gpu.Add[int32])
			got[t.Lane()] = [4]int{lp.Size(), lp.ThreadRank(), bp.Size(), int(sum)}
			lp.Sync()
		}))
		for l := range 32 {
			sum := 0
			for k := l % 4; k < 32; k += 4 {
				sum += k
			}
			bs := 27
			if l < 5 {
				bs = 5
			}
			require.Equal(t, [4]int{8, l / 4, bs, sum}, got[l], "lane %d", l)
		}
	})
}

// TestGridSync runs a two-phase grid computation: every thread writes,
// the grid syncs, every thread reads another block's values.
func TestGridSync(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const blocks, bs, rounds = 32, 64, 5
		data := gpu.Alloc[int32](d, "data", blocks*bs)
		bad := gpu.Alloc[int32](d, "bad", 1)
		rec := &syncRecorder{}
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: bs}, Executor: ex, Cooperative: true, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			grid := gpu.ThisGrid(t)
			n, i := grid.Size(), grid.ThreadRank()
			for k := range rounds {
				data.Store(t, i, int32(k*n+i))
				grid.Sync()
				j := (i + (k+1)*bs) % n
				if data.Load(t, j) != int32(k*n+j) {
					bad.Store(t, 0, 1)
				}
				grid.Sync()
			}
		}))
		require.Zero(t, bad.Host()[0])
		require.Equal(t, 2*rounds, rec.count(gpu.SyncGrid, ""))
		for _, s := range rec.syncs {
			require.Equal(t, gpu.Sync{Kind: gpu.SyncGrid, Block: -1, Warp: -1}, s)
		}
	})
}

func TestGridSyncNeedsCooperative(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	var wrong atomic.Bool
	err := launch1D(d, gpu.Fibers, 2, 32, func(t *gpu.Thread) {
		g := gpu.ThisGrid(t)
		if g.IsValid() || g.NumBlocks() != 2 || g.BlockRank() != t.BlockRank() || g.Size() != 64 {
			wrong.Store(true)
		}
		gpu.ThisGrid(t).Sync()
	})
	require.False(t, wrong.Load())
	require.ErrorContains(t, err, "grid sync in a launch that is not cooperative (set LaunchConfig.Cooperative)")
	// A grid larger than the resident slots is refused before it runs.
	d, err = gpu.NewDevice(gpu.DeviceConfig{SMs: 1, MaxBlocksPerSM: 3})
	require.NoError(t, err)
	closeAtEnd(t, d)
	err = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}, Cooperative: true},
		func(t *gpu.Thread) { gpu.ThisGrid(t).Sync() })
	require.ErrorIs(t, err, gpu.ErrCooperativeLaunchTooLarge)
}

// TestGridDeadlock has one block skip the grid sync for a block barrier
// another of its threads never reaches: no thread can go on.
func TestGridDeadlock(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 8}, Block: gpu.Dim3{X: 32}, Executor: ex, Cooperative: true}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.BlockRank() == 3 && t.ThreadRank() > 0 {
				t.SyncThreads()
				return
			}
			gpu.ThisGrid(t).Sync()
			t.SyncThreads()
		})
		require.ErrorIs(t, err, gpu.ErrDeadlock)
		require.ErrorContains(t, err, "block (3,0,0):\n\t\tthreads (0,0,0) grid.sync at ")
		require.ErrorContains(t, err, "threads (1,0,0)-(31,0,0) syncthreads at ")
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Len(t, se.Threads, 8*32)
	})
}

func TestSizeTypes(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	sizes := make([]int, 11)
	require.NoError(t, launch1D(d, gpu.Fibers, 1, 1024, func(t *gpu.Thread) {
		if t.ThreadRank() != 0 {
			return
		}
		for i, g := range []gpu.Tile{
			tileOf[gpu.Size1](t), tileOf[gpu.Size2](t), tileOf[gpu.Size4](t), tileOf[gpu.Size8](t),
			tileOf[gpu.Size16](t), tileOf[gpu.Size32](t), tileOf[gpu.Size64](t), tileOf[gpu.Size128](t),
			tileOf[gpu.Size256](t), tileOf[gpu.Size512](t), tileOf[gpu.Size1024](t),
		} {
			sizes[i] = g.Size()
		}
	}))
	for i, s := range sizes {
		require.Equal(t, 1<<i, s, fmt.Sprint(i))
		require.Equal(t, i, bits.TrailingZeros(uint(s)))
	}
}

func tileOf[S gpu.TileSize](t *gpu.Thread) gpu.Tile { return gpu.StaticTile[S](t) }

// TestSpinBlocksGridSync spins in one thread on a flag that is set only
// after a grid sync that the spinner itself must reach: no thread can go
// on, and since the spinner is not waiting, only the timeout ends it.
func TestSpinBlocksGridSync(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}, Executor: ex, Cooperative: true, Timeout: 50 * time.Millisecond}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.GlobalID() == 0 {
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
			}
			gpu.ThisGrid(t).Sync()
			if t.GlobalID() == 1 {
				flag.AtomicStore(t, 0, 1, scope.Device)
			}
		})
		require.ErrorIs(t, err, gpu.ErrTimeout)
		require.ErrorContains(t, err, "block (0,0,0):\n\t\tthreads (0,0,0) running")
		require.ErrorContains(t, err, "threads (1,0,0)-(31,0,0) grid.sync at")
		require.ErrorContains(t, err, "block (3,0,0):\n\t\tthreads (0,0,0)-(31,0,0) grid.sync at")
	})
}

// TestCoalescedCollectives checks the rank-based collectives of a
// coalesced group against a reference: ranks are the group's lanes in
// order, and sources past the group keep the caller's value.
func TestCoalescedCollectives(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const mask uint64 = 0b1011_0110_1101_0011_1000_1110_0101_1011
		type res struct {
			rank, size, shfl, down, up, xor, incl, excl int32
			ballot                                      uint64
			sub                                         uint64
		}
		got := make([]res, 32)
		require.NoError(t, launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			if mask&(1<<t.Lane()) == 0 {
				return
			}
			g := gpu.CoalescedThreads(t)
			v := int32(100 + t.Lane())
			got[t.Lane()] = res{int32(g.ThreadRank()), int32(g.Size()),
				gpu.Shfl(g, v, 3), gpu.ShflDown(g, v, 2), gpu.ShflUp(g, v, 1), gpu.ShflXor(g, v, 5),
				gpu.InclusiveScan(g, v, gpu.Add[int32]), gpu.ExclusiveScan(g, v, gpu.Max[int32]),
				gpu.Ballot(g, t.Lane()%2 == 0), g.Partition(4).Mask()}
		}))
		var lanes []int
		for l := range 32 {
			if mask&(1<<l) != 0 {
				lanes = append(lanes, l)
			}
		}
		n := len(lanes)
		for k, l := range lanes {
			src := func(r int) int32 {
				if r < 0 || r >= n {
					return int32(100 + l)
				}
				return int32(100 + lanes[r])
			}
			var incl, excl int32
			var ballot, sub uint64
			for j, lj := range lanes {
				if j <= k {
					incl += int32(100 + lj)
				}
				if j < k {
					excl = max(excl, int32(100+lj))
				}
				if lj%2 == 0 {
					ballot |= 1 << j
				}
				if j/4 == k/4 {
					sub |= 1 << lj
				}
			}
			want := res{int32(k), int32(n), int32(100 + lanes[3]), src(k + 2), src(k - 1), src(k ^ 5), incl, excl, ballot, sub}
			require.Equal(t, want, got[l], "lane %d rank %d", l, k)
		}
	})
}
