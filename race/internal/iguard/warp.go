package iguard

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// warp is a warp's synchronization state: a vector clock per lane over the
// warp's lanes, advanced only by the collectives a lane took part in, and
// the warp's lock table.
//
// iGUARD keeps one syncwarp counter per warp, so __syncwarp(mask) appears to
// order lanes outside mask too (a false negative). Here lane b is ordered
// after lane a's access exactly when a chain of collectives leads from a,
// after the access, to b: vc[b][a] exceeds the epoch a had at the access.
// A row is written only by Sync, while its lane is held in the collective,
// and read only by its lane, so it needs no lock.
type warp struct {
	n     int
	first int      // the rank of lane 0 in the block
	vc    []uint32 // n rows of n epochs; row b is lane b's view
	// dirty marks the rows a collective has written since the last
	// reset, which alone need zeroing: most kernels never sync a warp,
	// and zeroing every row (4 KiB a warp) at every block start cost
	// a 256-thread block 32 KiB of stores.
	dirty atomic.Uint64

	mu        sync.Mutex  // guards table, and the switch to per-thread tables
	table     held        // the warp's lock table, while in warp mode
	perThread atomic.Bool // per-thread locking detected: lanes use their own tables
}

func (w *warp) init(n, first int) {
	w.n, w.first = n, first
	w.vc = make([]uint32, n*n)
}

// reset zeroes w for a new block, keeping its clock's memory.
func (w *warp) reset() {
	for m := w.dirty.Swap(0); m != 0; m &= m - 1 {
		clear(w.vc[bits.TrailingZeros64(m)*w.n:][:w.n])
	}
	w.table.reuse(w.table.keep())
	w.table.set.Store(nil)
	w.table.n.Store(0)
	w.table.ver.Store(0)
	w.table.last = nil
	w.perThread.Store(false)
}

// epoch returns lane's own epoch: how many collectives it has completed.
func (w *warp) epoch(lane int) uint32 { return w.vc[lane*w.n+lane] }

// after reports whether lane b has been ordered, by collectives, after lane
// a completed its epoch-th collective.
func (w *warp) after(b, a int, epoch uint32) bool { return w.vc[b*w.n+a] > epoch }

// sync records a collective among the lanes in mask: each participant's
// view becomes the join of all of theirs, and each one's own epoch advances.
func (w *warp) sync(mask uint64) {
	mask &= w.all()
	if w.dirty.Load()&mask != mask {
		w.dirty.Or(mask) // a read first: the word shares a line every access reads
	}
	if mask&(mask-1) == 0 {
		w.vc[bits.TrailingZeros64(mask)*(w.n+1)]++ // one lane: nothing to order
		return
	}
	var buf [64]uint32 // the warp size is at most 64
	join := buf[:w.n]
	for m := mask; m != 0; m &= m - 1 {
		row := w.vc[bits.TrailingZeros64(m)*w.n:][:w.n]
		for i, e := range row {
			join[i] = max(join[i], e)
		}
	}
	for m := mask; m != 0; m &= m - 1 {
		join[bits.TrailingZeros64(m)]++
	}
	for m := mask; m != 0; m &= m - 1 {
		copy(w.vc[bits.TrailingZeros64(m)*w.n:], join)
	}
}

// all is the mask of every lane of the warp.
func (w *warp) all() uint64 {
	if w.n >= 64 {
		return ^uint64(0)
	}
	return 1<<w.n - 1
}
