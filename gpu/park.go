package gpu

import (
	"errors"
	"fmt"
)

// ErrDeadlock is the cause of a launch stopped because every live thread
// of a block (or, in a cooperative launch, of the grid) waits at a barrier
// or collective that none of them can complete: the hang a GPU would show.
var ErrDeadlock = errors.New("gpu: deadlock: every live thread waits at a barrier or collective no other thread can complete")

// A waitInfo says what a parked thread waits at, for stall reports. It
// holds no pointer, so that a thread records it at every wait without a
// write barrier, and names the wait only when a report asks (see name).
type waitInfo struct {
	kind waitKind
	op   collOp // the warp collective, for waitWarp
	mask uint64 // the lanes a warp collective names
	lo   int    // the first rank of a tile, for waitTile
	n    int    // the tile's size, for waitTile
}

// A waitKind is the kind of wait a waitInfo describes.
type waitKind uint8

const (
	notWaiting      waitKind = iota
	waitSyncThreads          // __syncthreads
	waitWarp                 // a warp collective
	waitConverge             // a convergence point
	waitGrid                 // a grid sync
	waitTile                 // the sync of a tile larger than a warp
)

// waiting reports whether w describes a wait.
func (w waitInfo) waiting() bool { return w.kind != notWaiting }

// name names the wait as stall reports and errors do: "syncthreads",
// "shfl", "grid.sync", "tile.sync(ranks 0-63)", ...; "" when not waiting.
func (w waitInfo) name() string {
	switch w.kind {
	case waitSyncThreads:
		return "syncthreads"
	case waitWarp:
		return w.op.String()
	case waitConverge:
		return "convergence point"
	case waitGrid:
		return "grid.sync"
	case waitTile:
		return fmt.Sprintf("tile.sync(ranks %d-%d)", w.lo, w.lo+w.n-1)
	}
	return ""
}

// park counts t as waiting at a barrier or collective of its block, then
// completes convergence points the wait may have unblocked and stops the
// launch if no thread of the block can go on. Preconditions: block locked.
func (b *block) park(t *Thread) {
	b.parked++
	b.slow = true
	t.parked = true
	if b.warpOps {
		w := &b.warps[t.Warp()]
		w.parked |= 1 << t.Lane()
		w.spinning &^= 1 << t.Lane()
		if w.conv != 0 {
			b.converge(w, nil)
		}
	}
	if b.parked == b.live || b.l.coop != nil {
		b.checkStall() // it has nothing to do otherwise
	}
}

// unpark counts t as no longer waiting. Preconditions: block locked.
func (b *block) unpark(t *Thread) {
	b.parked--
	t.parked = false
	if b.warpOps {
		b.warps[t.Warp()].parked &^= 1 << t.Lane()
	}
}

// checkStall stops the launch with ErrDeadlock when every live thread of
// the block waits and none can be released from outside it.
// Preconditions: block locked.
func (b *block) checkStall() {
	if b.l.stop.Load() {
		return // the launch is unwinding: threads that never start count as live
	}
	if b.l.coop != nil {
		b.l.coop.checkStall(b)
		return
	}
	if b.live > 0 && b.parked == b.live {
		b.l.stall(ErrDeadlock)
	}
}
