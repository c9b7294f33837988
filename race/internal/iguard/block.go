package iguard

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
)

// block is a running block's synchronization state. It is recycled as
// the runtime recycles its block slots: a block's end returns it to its
// launch, whose next block to start takes it, so a launch holds the
// states of its resident blocks only, whatever its grid. What later
// checks need of an ended block's threads, their last device fences, is
// folded into the launch's done table first.
type block struct {
	id int
	// rid is id for lookups from other blocks (residents.get), which may
	// read it while the state is being recycled.
	rid     atomic.Int64
	bar     atomic.Uint32 // completed __syncthreads rounds
	threads []thread
	warps   []warp
	next    *block // the next in its launch's list of ended blocks
}

// newBlock returns zeroed state for a block of g, reusing one an earlier
// launch of the same shape left: allocating a block's threads and warp
// clocks afresh was most of the detector's cost on a short launch, in
// garbage collection.
func (d *Engine) newBlock(g *gpu.Grid) *block {
	if b, ok := d.blocks.Get().(*block); ok && b.fits(g) {
		b.reset()
		return b
	}
	b := &block{threads: make([]thread, g.BlockSize), warps: make([]warp, g.Warps)}
	b.rid.Store(-1)
	for w := range b.warps {
		b.warps[w].init(g.WarpSize, w*g.WarpSize)
	}
	for r := range b.threads {
		w := r / g.WarpSize
		b.threads[r].threadPos = threadPos{blk: b, w: &b.warps[w], rank: r, lane: r % g.WarpSize,
			wn: min(g.WarpSize, g.BlockSize-w*g.WarpSize)}
	}
	return b
}

// fits reports whether b has g's block shape.
func (b *block) fits(g *gpu.Grid) bool {
	return len(b.threads) == g.BlockSize && len(b.warps) == g.Warps && b.warps[0].n == g.WarpSize
}

// reset zeroes b for a new block, keeping its memory.
func (b *block) reset() {
	for i := range b.threads {
		b.threads[i].reset()
	}
	for w := range b.warps {
		b.warps[w].reset()
	}
	b.bar.Store(0)
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

// maxResidentBuckets bounds the size of residents' direct-mapped table:
// block ids run through it in launch order, so the blocks resident at
// once rarely share a bucket.
const maxResidentBuckets = 1 << 10

// residents finds the running blocks' states by block id, for a thread's
// first access and for checks against another thread's record. A block
// takes its id's bucket, or, if a block still running holds it, a place
// in the map behind it.
type residents struct {
	bucket []atomic.Pointer[block] // a power of two of them
	more   sync.Map                // int → *block
}

// init sizes r for a grid of n blocks: a short launch allocates a table
// as small as its grid.
func (r *residents) init(n int) {
	r.bucket = make([]atomic.Pointer[block], min(1<<bits.Len(uint(n-1)), maxResidentBuckets))
}

// at returns block id's bucket.
func (r *residents) at(id int) *atomic.Pointer[block] { return &r.bucket[id&(len(r.bucket)-1)] }

// put makes b, whose rid is set, findable.
func (r *residents) put(b *block) {
	if !r.at(b.id).CompareAndSwap(nil, b) {
		r.more.Store(b.id, b)
	}
}

// get returns the state of running block id, or nil.
func (r *residents) get(id int) *block {
	if b := r.at(id).Load(); b != nil && b.rid.Load() == int64(id) {
		return b
	}
	if v, ok := r.more.Load(id); ok {
		return v.(*block)
	}
	return nil
}

// del removes b, before its rid changes.
func (r *residents) del(b *block) {
	if !r.at(b.id).CompareAndSwap(b, nil) {
		r.more.Delete(b.id)
	}
}
