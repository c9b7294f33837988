package block

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// TempLen returns the elements of shared memory [Reduce] and the scans
// need in t's block: one per warp.
func TempLen(t *gpu.Thread) int { return t.Grid().Warps }

// Temp declares the block's shared array called name, of [TempLen]
// elements of T, for [Reduce] and the scans: `__shared__ T name[warps]`.
func Temp[T gpu.Elem](t *gpu.Thread, name string) gpu.Buffer[T] {
	return gpu.Shared[T](t, name, TempLen(t))
}

// needTemp fails the thread, naming the function and sizes, unless tmp
// has n elements from base on.
func needTemp[T gpu.Elem](t *gpu.Thread, fn string, tmp gpu.Buffer[T], base, n int) {
	if tmp.Len() < base+n {
		panic(fmt.Sprintf("block.%s: shared memory %v has %d elements; it needs %d", fn, tmp.Memory(), tmp.Len(), base+n))
	}
}

// lanes returns the number of lanes t's warp has: the warp size, or fewer
// in a partial last warp.
func lanes(t *gpu.Thread) int {
	g := t.Grid()
	return min(g.WarpSize, g.BlockSize-t.Warp()*g.WarpSize)
}

// combine folds the totals of the warps that hold the first valid
// threads, which each warp's last valid lane passes as total, through
// tmp[base:base+warps]: it returns op folded over the totals of the warps
// before t's (ok false for warp 0, which has none) and over all of them.
// It executes two __syncthreads, the second after its last access to tmp.
func combine[T gpu.Elem](t *gpu.Thread, tmp gpu.Buffer[T], base, valid int, total T, op func(a, b T) T) (before T, ok bool, all T) {
	w, ws := t.Warp(), t.Grid().WarpSize
	if t.Lane() == min(lanes(t), valid-w*ws)-1 {
		tmp.Store(t, base+w, total)
	}
	t.SyncThreads()
	all = tmp.Load(t, base)
	for i := 1; i < (valid+ws-1)/ws; i++ {
		if i == w {
			before, ok = all, true
		}
		all = op(all, tmp.Load(t, base+i))
	}
	t.SyncThreads()
	return before, ok, all
}
