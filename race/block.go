package race

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
)

// block is a running block's synchronization state.
type block struct {
	id      int
	bar     atomic.Uint32 // completed __syncthreads rounds
	threads []thread
	warps   []warp
	// chunks are the threads' chunks of first records, by rank, kept
	// with the block's state from launch to launch, and firstBytes their
	// size (see first.go).
	chunks     []firstChunkSet
	firstBytes atomic.Int64
}

// newBlock returns zeroed state for a block of g, reusing one an earlier
// launch of the same shape left: allocating a block's threads and warp
// clocks afresh was most of the detector's cost on a short launch, in
// garbage collection.
func (d *Detector) newBlock(g *gpu.Grid) *block {
	if b, ok := d.blocks.Get().(*block); ok && len(b.threads) == g.BlockSize && len(b.warps) == g.Warps && b.warps[0].n == g.WarpSize {
		for i := range b.threads {
			b.threads[i].reset()
		}
		for w := range b.warps {
			b.warps[w].reset()
		}
		b.bar.Store(0)
		d.bytes.Add(b.firstBytes.Load()) // its first records' chunks are in use again
		return b
	}
	b := &block{threads: make([]thread, g.BlockSize), warps: make([]warp, g.Warps), chunks: make([]firstChunkSet, g.BlockSize)}
	for w := range b.warps {
		b.warps[w].init(g.WarpSize, w*g.WarpSize)
	}
	return b
}

// tileSync records a sync of the tile of ranks [first, first+n).
func (b *block) tileSync(first, n int) {
	for r := first; r < first+n && r < len(b.threads); r++ {
		th := &b.threads[r]
		th.tileLo.Store(int32(first))
		th.tileHi.Store(int32(first + n))
		th.tileN.Add(1)
	}
}
