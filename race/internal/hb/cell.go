package hb

import "github.com/warpguard/warpguard/gpu"

// A cell is the shadow of one granule. While one access is all a granule
// needs to remember (most granules of a large kernel are touched by one
// thread), that access is the cell's first record and the cell holds
// nothing else; the granule's full state, a ploc, is made when a second
// access needs one: another thread's, a strong write's (which sets the
// release state), or one the first does not stand for. The ploc is kept
// beside the cells, in its page's table (see page.full): a cell holds no
// pointer, and a cell with a ploc keeps nothing in first.
type cell struct {
	first prec // the only record, while the cell has no ploc; zero (c == 0) if none
}

// quick records ac's access x, of thread th, in a cell that holds at
// most one access and has no ploc, when that needs none, and reports
// whether it did.
// The record left is exactly what a ploc would keep: an empty cell takes
// x, unless x releases (a ploc holds release state); a weak access of
// the thread that made the record replaces it when it is a write or the
// record is not, as pruning would (the thread's own earlier access is
// ordered before x, and whatever races with it races with x); a weak
// read at the epoch of the thread's weak write adds nothing, since
// whatever is unordered with one is unordered with the other and races
// with the write (FastTrack's same-epoch case); and a strong access of
// the thread replaces its strong record as the ploc would (see
// strongReplaces).
func (c *cell) quick(ac *access) bool {
	x, y := &ac.x, &c.first
	switch {
	case ac.releases:
		return false
	case y.e.c == 0:
		x.copyTo(y)
		return true
	case y.e.tid != ac.th.tid:
		return false
	case x.strong():
		return c.strongReplaces(x, ac.wide, ac.a.Mem.Space)
	case x.write || !y.write:
		x.copyTo(y)
		return true
	}
	return y.e == x.e && !y.strong()
}

// strongReplaces replaces the cell's record, an access of the thread of
// x, a strong access of space sp (wide if wide), where a ploc would keep
// x alone, and reports whether it did: of two wide accesses the wide set
// keeps one per thread and kind (read or write); else pruning drops a
// strong record of the thread whose scope is no narrower than x's, when
// x writes or the record does not. Neither drops a volatile record for a
// non-volatile x (see supersedes).
func (c *cell) strongReplaces(x *prec, wide bool, sp gpu.Space) bool {
	y := &c.first
	if !y.strong() || y.wide(sp) != wide || !supersedes(x, y) {
		return false
	}
	if wide && x.write == y.write || !wide && x.scope <= y.scope && (x.write || !y.write) {
		x.copyTo(y)
		return true
	}
	return false
}

// loc returns the full state of cell i, making it from the cell's first
// record, if any, placed as a ploc places its first access; sp is the
// space of the page's memory, run the keys of the block of the thread
// whose access needs the state (see keyRun). Preconditions: the page
// lock held.
func (pg *page) loc(i uint64, sp gpu.Space, run keyRun) *ploc {
	if loc := pg.locOf(i); loc != nil {
		return loc
	}
	if pg.full == nil {
		pg.full = new(fullStates)
	}
	loc, c := pg.full.newLoc(), &pg.cells[i]
	if c.first.e.c != 0 {
		loc.place(nil, &c.first, c.first.wide(sp), pg.full, run)
		c.first = prec{}
	}
	pg.full.locs[i] = loc
	return loc
}

// note marks the page crowded once loc, one of its full states, is (see
// ploc.crowded), writing the table only then. Preconditions: the page
// lock held, loc made by pg.loc.
func (pg *page) note(loc *ploc) {
	if !pg.full.crowded && loc.crowded() {
		pg.full.crowded = true
	}
}

// locOf returns the full state of cell i, or nil while it has none.
// Preconditions: the page lock held.
func (pg *page) locOf(i uint64) *ploc {
	if pg.full == nil {
		return nil
	}
	return pg.full.locs[i]
}
