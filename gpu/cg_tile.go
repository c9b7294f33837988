package gpu

import (
	"fmt"
	"math/bits"
	"slices"
)

// A Tile is cooperative groups' thread_block_tile: one of the groups of
// Size consecutive ranks a [TiledPartition] cuts its parent into. A tile of
// up to a warp supports the warp collectives ([Shfl], [Ballot], [Reduce],
// ...); a larger one (up to the block) supports only Sync, as in CUDA.
type Tile struct {
	t        *Thread
	size     int
	base     int    // rank of the tile's first thread
	mask     uint64 // the tile's lanes in its warp, for tiles up to a warp
	metaRank int
	metaSize int
}

// TiledPartition is cg::tiled_partition(this_thread_block(), size): it
// cuts t's block into tiles of size consecutive ranks and returns t's.
// size must be a power of two no larger than the block; a tile larger
// than a warp must divide the block evenly. A bad size fails the thread.
func TiledPartition(t *Thread, size int) Tile {
	return t.partition(0, t.blk.l.g.BlockSize, size)
}

// Partition cuts the tile into tiles of size and returns the caller's, as
// cg::tiled_partition(tile, size) does.
func (g Tile) Partition(size int) Tile {
	if size > g.size {
		g.t.failf("tiled_partition of a %d-thread tile into %d-thread tiles", g.size, size)
	}
	return g.t.partition(g.base, g.size, size)
}

// A TileSize names a tile size in a type, for [StaticTile]: CUDA's
// tiled_partition<N>. Only the sizes CUDA allows have a type.
type TileSize interface{ tileSize() int }

// The static tile sizes.
type (
	Size1    struct{}
	Size2    struct{}
	Size4    struct{}
	Size8    struct{}
	Size16   struct{}
	Size32   struct{}
	Size64   struct{}
	Size128  struct{}
	Size256  struct{}
	Size512  struct{}
	Size1024 struct{}
)

func (Size1) tileSize() int    { return 1 }
func (Size2) tileSize() int    { return 2 }
func (Size4) tileSize() int    { return 4 }
func (Size8) tileSize() int    { return 8 }
func (Size16) tileSize() int   { return 16 }
func (Size32) tileSize() int   { return 32 }
func (Size64) tileSize() int   { return 64 }
func (Size128) tileSize() int  { return 128 }
func (Size256) tileSize() int  { return 256 }
func (Size512) tileSize() int  { return 512 }
func (Size1024) tileSize() int { return 1024 }

// StaticTile is cg::tiled_partition<N>(this_thread_block()), the size
// given as a type such as [Size32].
func StaticTile[S TileSize](t *Thread) Tile {
	var s S
	return TiledPartition(t, s.tileSize())
}

// partition returns t's tile of size among the parent ranks [lo, lo+n).
func (t *Thread) partition(lo, n, size int) Tile {
	ws := t.blk.l.g.WarpSize
	switch {
	case size < 1 || bits.OnesCount(uint(size)) != 1 || size > n:
		t.failf("tiled_partition into %d-thread tiles of a %d-thread group; want a power of two up to the group size", size, n)
	case size > ws && n%size != 0:
		t.failf("tiled_partition of a %d-thread group into %d-thread tiles leaves a partial tile; tiles larger than a warp must divide it", n, size)
	}
	g := Tile{t: t, size: size, base: lo + (t.rank-lo)/size*size, metaRank: (t.rank - lo) / size, metaSize: (n + size - 1) / size}
	if size <= ws {
		g.mask = laneMask(size) << (g.base & (ws - 1))
	}
	return g
}

// Size returns the number of threads in the tile, thread_block_tile::size.
// In a partial last warp a tile may have fewer threads that exist.
func (g Tile) Size() int { return g.size }

// ThreadRank returns the thread's rank in the tile.
func (g Tile) ThreadRank() int { return g.t.rank - g.base }

// MetaGroupRank returns the tile's index among the tiles of its parent.
func (g Tile) MetaGroupRank() int { return g.metaRank }

// MetaGroupSize returns how many tiles its parent was cut into.
func (g Tile) MetaGroupSize() int { return g.metaSize }

// Mask returns the tile's lanes in its warp, or 0 for a tile larger than a
// warp.
func (g Tile) Mask() uint64 { return g.mask }

// Sync is thread_block_tile::sync: the threads of the tile wait for each
// other. A tile of up to a warp syncs as [Thread.SyncWarp] of its lanes
// (the observer sees SyncWarp with Op "tile.sync"); a larger tile is a
// barrier of its ranks (the observer sees SyncTile). In the terminology of
// [the Go memory model], every access a thread of the tile makes before
// Sync "synchronizes before" every access any thread of the tile makes
// after it. A thread of the tile that exits or waits elsewhere is a
// divergence.
//
// [the Go memory model]: https://go.dev/ref/mem
//
//go:noinline
func (g Tile) Sync() {
	g.t.mark()
	if g.mask != 0 {
		g.t.warpCollective(opTileSync, g.mask, 0)
		return
	}
	g.t.tileSync(g.base, g.size)
}

func (g Tile) warpGroup(op string) (*Thread, uint64) {
	if g.mask == 0 {
		g.t.failf("%s on a %d-thread tile: tiles larger than a warp support only Sync", op, g.size)
	}
	return g.t, g.mask
}

// fromRank returns the lane of the tile's rank r, wrapping r mod the size.
func (g Tile) fromRank(r int) int { return g.base&(g.t.blk.l.g.WarpSize-1) + r&(g.size-1) }

func (g Tile) width() int { return g.size }

func (g Tile) rankOf(lane int) int { return lane - g.base&(g.t.blk.l.g.WarpSize-1) }

// A tileRound is a sync of a tile larger than a warp: the ranks
// [lo, lo+n) of the block.
type tileRound struct {
	lo, n   int
	arrived int
	waiters []*Thread
	pcs     []callSite // per arrival, when divergence is checked
	ranks   []int
}

// tileSync is Sync of the tile of ranks [lo, lo+n).
func (t *Thread) tileSync(lo, n int) {
	t.check()
	b, ex := t.blk, t.blk.exec
	ex.lock()
	if !b.warpOps {
		b.enableWarps()
	}
	if b.arriveTile(t, lo, n, t.waitPC) {
		ex.unlock()
		t.check()
		return
	}
	t.at = waitInfo{kind: waitTile, lo: lo, n: n}
	ex.wait(t)
	t.at = waitInfo{}
	t.check()
}

// arriveTile counts t at the sync of tile [lo, lo+n) and reports whether t
// completed it; if not, t is parked. Preconditions: block locked.
func (b *block) arriveTile(t *Thread, lo, n int, pc callSite) bool {
	if p := b.blockingTile(t.rank, lo, n); p != nil {
		b.mismatch(&DivergenceError{Block: b.id, Warp: -1, Barrier: fmt.Sprintf("tile.sync(ranks %d-%d)", p.lo, p.lo+p.n-1),
			Site: b.l.d.site(p.pcs[0]), Waiting: slices.Clone(p.ranks),
			Elsewhere: []Divergent{{What: fmt.Sprintf("tile.sync(ranks %d-%d)", lo, lo+n-1), Site: b.l.d.site(pc), Threads: []int{t.rank}}}})
		return true // the error has its own copy of p's ranks: p is reused once it completes
	}
	var r *tileRound
	for _, p := range b.tiles {
		if p.lo == lo && p.n == n {
			r = p
			break
		}
	}
	if r == nil {
		r = b.newTile(lo, n)
		b.tiles = append(b.tiles, r)
	}
	r.arrived++
	r.pcs, r.ranks = append(r.pcs, pc), append(r.ranks, t.rank)
	if r.arrived == n-b.exitedIn(lo, n) {
		b.completeTile(r, t)
		return true
	}
	r.waiters = append(r.waiters, t)
	b.park(t)
	return false
}

// newTile returns an empty sync of the tile [lo, lo+n), one of the
// block's free ones if it has one. Preconditions: block locked.
func (b *block) newTile(lo, n int) *tileRound {
	k := len(b.freeTiles)
	if k == 0 {
		return &tileRound{lo: lo, n: n}
	}
	r := b.freeTiles[k-1]
	b.freeTiles = b.freeTiles[:k-1]
	r.lo, r.n, r.arrived = lo, n, 0
	r.waiters, r.pcs, r.ranks = r.waiters[:0], r.pcs[:0], r.ranks[:0]
	return r
}

// blockingTile returns a tile sync in progress, of other ranks than
// [lo, lo+n), that waits for rank while one of its waiting threads is in
// [lo, lo+n), or nil: the two would wait for each other forever. An
// overlapping sync that rank has yet to reach is no mismatch: the threads
// of a 64-thread tile may sync a 128-thread tile while the other half
// still syncs its own 64.
func (b *block) blockingTile(rank, lo, n int) *tileRound {
	for _, p := range b.tiles {
		if p.lo == lo && p.n == n || rank < p.lo || rank >= p.lo+p.n {
			continue
		}
		for _, r := range p.ranks {
			if lo <= r && r < lo+n {
				return p
			}
		}
	}
	return nil
}

// exitedIn counts the exited threads among ranks [lo, lo+n), whole warps.
func (b *block) exitedIn(lo, n int) int {
	ws := b.l.g.WarpSize
	c := 0
	for w := lo / ws; w < (lo+n+ws-1)/ws && w < len(b.warps); w++ {
		c += bits.OnesCount64(b.warps[w].exited)
	}
	return c
}

// completeTile ends tile round r, which by completed.
func (b *block) completeTile(r *tileRound, by *Thread) {
	b.rounds++
	for i, p := range b.tiles {
		if p == r {
			b.tiles = append(b.tiles[:i], b.tiles[i+1:]...)
			break
		}
	}
	if b.l.checks() {
		b.checkTile(r)
	}
	if by.obs != nil {
		b.l.syncObserved(by, Sync{Kind: SyncTile, Block: b.id, Warp: -1, Op: "tile.sync", First: r.lo, Count: r.n})
	}
	for _, w := range r.waiters {
		b.unpark(w)
		b.exec.wakeOne(w)
	}
	b.freeTiles = append(b.freeTiles, r) // its waiters read nothing of it
}

// checkTile reports threads of r's tile that exited or synced at another
// site.
func (b *block) checkTile(r *tileRound) {
	if r.arrived == r.n && !differ(r.pcs) {
		return
	}
	e := &DivergenceError{Block: b.id, Warp: -1, Barrier: fmt.Sprintf("tile.sync(ranks %d-%d)", r.lo, r.lo+r.n-1)}
	b.l.d.split(e, "tile.sync", r.ranks, r.pcs, r.lo, r.n, always)
	b.diverged(e)
}

// differ reports whether the call sites are not all the same.
func differ(pcs []callSite) bool {
	for _, p := range pcs {
		if p != pcs[0] {
			return true
		}
	}
	return false
}

// exitTiles completes the tile syncs that were waiting only for t, which
// exited. Preconditions: block locked.
func (b *block) exitTiles(t *Thread) {
	for i := 0; i < len(b.tiles); {
		r := b.tiles[i]
		if r.lo <= t.rank && t.rank < r.lo+r.n && r.arrived > 0 && r.arrived == r.n-b.exitedIn(r.lo, r.n) {
			b.completeTile(r, r.waiters[0])
			continue
		}
		i++
	}
}
