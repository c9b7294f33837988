package gpu

import "sync"

// A GridGroup is cooperative groups' grid_group: every thread of the
// launch. Get it with [ThisGrid].
type GridGroup struct{ t *Thread }

// ThisGrid returns the grid group of t's launch, cg::this_grid().
func ThisGrid(t *Thread) GridGroup { return GridGroup{t} }

// Size returns the number of threads in the grid.
func (g GridGroup) Size() int { return g.t.blk.l.g.Threads }

// ThreadRank returns the thread's rank in the grid: its GlobalID.
func (g GridGroup) ThreadRank() int { return g.t.gid }

// NumBlocks returns the number of blocks in the grid.
func (g GridGroup) NumBlocks() int { return g.t.blk.l.g.Blocks }

// BlockRank returns the rank of the thread's block in the grid.
func (g GridGroup) BlockRank() int { return g.t.blk.id }

// IsValid reports whether the launch is cooperative, so that Sync works.
func (g GridGroup) IsValid() bool { return g.t.blk.l.coop != nil }

// Sync is grid_group::sync: the thread waits until every thread of the
// grid that has not exited reaches a grid Sync. It needs a cooperative
// launch (LaunchConfig.Cooperative), whose blocks are all resident at once;
// elsewhere it fails the thread.
//
// In the terminology of [the Go memory model], every access any thread of
// the grid makes before a grid sync "synchronizes before" every access any
// thread of the grid makes after it. The observer sees one Sync of kind
// SyncGrid with Block -1.
//
// [the Go memory model]: https://go.dev/ref/mem
//
//go:noinline
func (g GridGroup) Sync() {
	t := g.t
	t.check()
	l := t.blk.l
	if l.coop == nil {
		t.failf("grid sync in a launch that is not cooperative (set LaunchConfig.Cooperative)")
	}
	t.mark()
	if l.coop.arrive(t) {
		t.check()
		return
	}
	t.blk.exec.waitOutside(t)
	t.at = waitInfo{}
	t.check()
}

// coop is the grid-wide state of a cooperative launch.
type coop struct {
	mu         sync.Mutex
	live       int // threads of the grid that have not exited
	arrived    int
	waiters    []*Thread
	stalled    int // unfinished blocks whose every live thread waits
	unfinished int // blocks with live threads
	warned     bool
}

// arrive counts t at the grid sync and reports whether it completed it; if
// not, t must wait outside its block.
func (c *coop) arrive(t *Thread) bool {
	b := t.blk
	b.exec.lock()
	defer b.exec.unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arrived++
	if c.arrived == c.live {
		c.complete(t)
		return true
	}
	c.waiters = append(c.waiters, t)
	b.gridWait++
	t.at, t.parked = waitInfo{kind: waitGrid}, true
	if b.warpOps {
		w := &b.warps[t.Warp()]
		w.parked |= 1 << t.Lane()
		if w.conv != 0 {
			b.converge(w, nil)
		}
	}
	c.checkStallLocked(b)
	return false
}

// complete ends the grid round that by completed. Preconditions: c.mu
// held.
func (c *coop) complete(by *Thread) {
	l := by.blk.l
	if l.checks() {
		c.check(by)
	}
	if by.obs != nil {
		by.blk.l.syncObserved(by, Sync{Kind: SyncGrid, Block: -1, Warp: -1})
	}
	for _, w := range c.waiters {
		b := w.blk
		b.gridWait--
		c.setStalled(b, false)
		b.exec.wakeOutside(w)
	}
	c.waiters, c.arrived = nil, 0
}

// check reports threads that exited, or wait at another call site, while
// the others meet at the grid sync. Preconditions: c.mu held.
func (c *coop) check(by *Thread) {
	l := by.blk.l
	all := c.waiters
	if len(all) == 0 || all[0] != by {
		all = append([]*Thread{by}, all...)
	}
	diff := false
	for _, w := range all {
		diff = diff || w.waitPC != by.waitPC
	}
	if c.live == l.g.Threads && !diff || l.stop.Load() {
		return
	}
	ids, pcs := make([]int, len(all)), make([]callSite, len(all))
	for i, w := range all {
		ids[i], pcs[i] = w.gid, w.waitPC
	}
	e := &DivergenceError{Block: -1, Warp: -1, Barrier: "grid.sync"}
	e.place(l)
	l.d.split(e, "grid.sync", ids, pcs, 0, l.g.Threads, always)
	switch l.cfg.Divergence {
	case DivergenceWarn:
		if !c.warned {
			c.warned, e.Warn = true, true
			l.recordOther(e)
		}
	default:
		l.recordOther(e)
		l.halt()
	}
}

// exit records that a thread of block b exited: the grid round may now be
// complete, the block finished, or the grid stalled. Preconditions: block
// locked.
func (c *coop) exit(b *block) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live--
	if b.live == 0 {
		c.unfinished--
		c.setStalled(b, false)
	}
	if c.arrived > 0 && c.arrived == c.live && !b.l.stop.Load() {
		c.complete(c.waiters[0])
	}
	c.checkStallLocked(b)
}

// checkStall is block.checkStall for a cooperative launch.
func (c *coop) checkStall(b *block) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.checkStallLocked(b)
}

// checkStallLocked updates whether b is stalled and stops the launch if
// b, or the whole grid, can make no progress. Preconditions: block locked,
// c.mu held.
func (c *coop) checkStallLocked(b *block) {
	if b.l.stop.Load() {
		return
	}
	stalled := b.live > 0 && b.parked+b.gridWait == b.live
	if stalled && b.gridWait == 0 {
		b.l.stall(ErrDeadlock)
		return
	}
	c.setStalled(b, stalled)
	if c.unfinished > 0 && c.stalled == c.unfinished {
		b.l.stall(ErrDeadlock)
	}
}

// setStalled records whether every live thread of b waits, at the grid
// sync or at its block's barriers (see checkStallLocked). A stalled block
// makes no progress of its own and runs no code that would confirm it
// stuck, so its slot tells the livelock watchdog it waits (slotWaiting):
// a grid sync that another block's spinning thread never reaches is then
// stopped by that block's watch alone. Preconditions: c.mu held.
func (c *coop) setStalled(b *block, stalled bool) {
	if stalled == b.gridStalled {
		return
	}
	b.gridStalled = stalled
	st := int64(slotBusy)
	if stalled {
		c.stalled++
		st = slotWaiting
	} else {
		c.stalled--
	}
	if b.l.window > 0 {
		b.l.watch[b.slot].quietAt.Store(st)
	}
}
