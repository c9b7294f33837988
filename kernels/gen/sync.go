package gen

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// SyncThreads is __syncthreads, reached by every thread.
type SyncThreads struct{}

// run waits at the block barrier.
func (SyncThreads) run(t *gpu.Thread, _ *mem) { t.SyncThreads() }

// String prints "__syncthreads()".
func (SyncThreads) String() string { return "__syncthreads()" }

// SyncWarp is __syncwarp(Mask), run by the lanes Mask names (those that
// exist in each warp).
type SyncWarp struct {
	Mask uint64 // the lanes that meet; bits past the warp's lanes are ignored
}

// run waits at __syncwarp if t's lane is named.
func (s SyncWarp) run(t *gpu.Thread, _ *mem) {
	if m := s.Mask & lanes(t); m&(1<<t.Lane()) != 0 {
		t.SyncWarp(m)
	}
}

// String prints the __syncwarp with the lanes that run it.
func (s SyncWarp) String() string {
	if s.Mask == ^uint64(0) {
		return "__syncwarp()"
	}
	return fmt.Sprintf("if (lane in %#x) __syncwarp(%#x)", s.Mask, s.Mask)
}

// lanes returns the mask of the lanes that exist in t's warp.
func lanes(t *gpu.Thread) uint64 {
	g := t.Grid()
	n := min(g.WarpSize, g.BlockSize-t.Warp()*g.WarpSize)
	if n == 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// Ballot is __ballot_sync over every lane of the warp: it exchanges
// values and orders no memory.
type Ballot struct{}

// run votes with every lane of the warp.
func (Ballot) run(t *gpu.Thread, _ *mem) { gpu.BallotSync(t, lanes(t), true) }

// String prints the ballot.
func (Ballot) String() string { return "__ballot_sync(__activemask(), 1)" }

// TileSync is cg::tiled_partition(this_thread_block(), Size).sync(), run
// by every thread: a barrier of each tile of Size consecutive ranks.
type TileSync struct {
	Size int // the tile's size in threads, a power of two
}

// run waits at t's tile's barrier.
func (s TileSync) run(t *gpu.Thread, _ *mem) { gpu.TiledPartition(t, s.Size).Sync() }

// String prints the tile sync.
func (s TileSync) String() string { return fmt.Sprintf("tiled_partition(block, %d).sync()", s.Size) }
