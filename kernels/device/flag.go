package device

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// A flag reports whether index i of the input is selected. It runs inside
// kernels, twice per index, so it must read only what no launch of the
// primitive writes.
type flag func(t *gpu.Thread, i int) bool

// A place moves index i of the input to its output: before is the number
// of selected indices below i.
type place func(t *gpu.Thread, i, before int, selected bool)

// flagged counts each tile's selected indices of n and scans the counts:
// offsets[b] is the number selected in the tiles before b, and total the
// number in all of them.
func flagged(r *run, n int, f flag) (offsets gpu.Buffer[int32], total int, err error) {
	blocks := r.tiles(n)
	offsets = alloc[int32](r, "offsets", blocks+1) // offsets[blocks] stays 0 and scans to the total
	tile := r.tile()
	err = r.launch("count", blocks, func(t *gpu.Thread) {
		c := block.Reduce(t, block.Temp[int32](t, "count"), count(t, n, tile, f), gpu.Add[int32])
		if t.Rank() == 0 {
			offsets.Store(t, t.Block(), c)
		}
	})
	if err != nil {
		return offsets, 0, err
	}
	if err := scan(r, offsets, offsets, new(int32(0)), gpu.Add[int32]); err != nil {
		return offsets, 0, err
	}
	host := offsets.Host()
	return offsets, int(host[blocks]), nil
}

// count returns how many of the thread's indices are selected.
func count(t *gpu.Thread, n, tile int, f flag) int32 {
	var c int32
	first := t.Block()*tile + t.Rank()*items
	for i := first; i < min(first+items, n); i++ {
		if f(t, i) {
			c++
		}
	}
	return c
}

// scatter places every index of n: a block scan of the threads' counts,
// from the tile's offset, gives each thread the selected indices before
// its own.
func scatter(r *run, n int, offsets gpu.Buffer[int32], f flag, p place) error {
	tile := r.tile()
	return r.launch("scatter", r.tiles(n), func(t *gpu.Thread) {
		c := count(t, n, tile, f)
		before, _ := block.ExclusiveScan(t, block.Temp[int32](t, "scatter"), c, offsets.Load(t, t.Block()), gpu.Add[int32])
		first := t.Block()*tile + t.Rank()*items
		for i := first; i < min(first+items, n); i++ {
			sel := f(t, i)
			p(t, i, int(before), sel)
			if sel {
				before++
			}
		}
	})
}
