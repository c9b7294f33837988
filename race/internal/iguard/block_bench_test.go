package iguard

import (
	"fmt"
	"testing"

	"github.com/warpguard/warpguard/gpu"
)

// BenchmarkNewBlock is the cost of a block's detector state at its start,
// reused from an ended launch: a 256-thread block of 8 warps whose warps
// synced in the last launch (every clock row to zero again: the cost of
// every block start before warps tracked their dirty rows) or did not
// (the common case, which now zeroes no row).
func BenchmarkNewBlock(b *testing.B) {
	g := &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 256, Threads: 256, WarpSize: 32, Warps: 8}
	for _, synced := range []bool{false, true} {
		b.Run(fmt.Sprintf("warps-synced=%v", synced), func(b *testing.B) {
			d := testEngine()
			for b.Loop() {
				blk := d.newBlock(g)
				if synced {
					for w := range blk.warps {
						blk.warps[w].sync(blk.warps[w].all())
					}
				}
				d.blocks.Put(blk)
			}
		})
	}
}
