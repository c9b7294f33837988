package gpu

import "errors"

// ErrDeadlock is the cause of a launch stopped because every live thread
// of a block (or, in a cooperative launch, of the grid) waits at a barrier
// or collective that none of them can complete: the hang a GPU would show.
var ErrDeadlock = errors.New("gpu: deadlock: every live thread waits at a barrier or collective no other thread can complete")

// A waitInfo says what a parked thread waits at, for stall reports.
type waitInfo struct {
	op   string // "syncthreads", "syncwarp", "grid.sync", ...; "" when not waiting
	mask uint64 // the lanes a warp collective names
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
	b.checkStall()
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
