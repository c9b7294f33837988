package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/warpguard/warpguard/gpu"
)

// TestLanesStayInTheBlock: a thread's lanes are its warp's, and a warp
// its block cuts short ends at the block's end, not in the next block.
func TestLanesStayInTheBlock(t *testing.T) {
	t.Parallel()
	l := &plaunch{p: New(2, false, false, nil, nil), tid0: 100, blk0: 3, g: &gpu.Grid{BlockSize: 48, WarpSize: 32, Warps: 2, Threads: 96}}
	blk := &pblock{id: 0, threads: make([]pthread, 48)} // the first of two blocks
	for _, c := range []struct{ rank, lo, hi int32 }{{40, 132, 148}, {5, 100, 132}, {31, 100, 132}} {
		th := &blk.threads[c.rank]
		l.start(th, blk, c.rank)
		lo, hi := th.lanes()
		assert.Equal(t, [2]int32{c.lo, c.hi}, [2]int32{lo, hi}, "rank %d", c.rank)
	}
}
