package hb

import "github.com/warpguard/warpguard/gpu"

// A cell is the shadow of one granule. While one access is all a granule
// needs to remember (most granules of a large kernel are touched by one
// thread), that access is the cell's first record and the cell holds
// nothing else; the granule's full state, a ploc, is made when a second
// access needs one: another thread's, a strong write's (which sets the
// release state), or one the first does not stand for. A cell whose full
// is set keeps nothing in first.
type cell struct {
	first prec // the only record, while full is nil; zero (c == 0) if none
	full  *ploc
}

// quick records x, an access of th, in a cell that holds at most one
// access, when that needs no ploc, and reports whether it did. The record
// left is exactly what the ploc would keep: an empty cell takes x; a weak
// access of the thread that made the record replaces it when it is a
// write or the record is not, as pruning would (the thread's own earlier
// access is ordered before x, and whatever races with it races with x);
// and a weak read at the epoch of the thread's weak write adds nothing,
// since whatever is unordered with one is unordered with the other and
// races with the write (FastTrack's same-epoch case).
func (c *cell) quick(th *pthread, x *prec) bool {
	y := &c.first
	switch {
	case c.full != nil || x.write && x.strong():
		return false
	case y.e.c == 0:
		*y = *x
		return true
	case y.e.tid != th.tid || x.strong():
		return false
	case x.write || !y.write:
		*y = *x
		return true
	}
	return y.e == x.e && !y.strong()
}

// loc returns the cell's full state, making it from the first record,
// if any, placed as a ploc places its first access; sp is the space of
// the cell's memory.
func (c *cell) loc(sp gpu.Space) *ploc {
	if c.full == nil {
		c.full = new(ploc)
		if c.first.e.c != 0 {
			c.full.place(&c.first, c.first.wide(sp))
			c.first = prec{}
		}
	}
	return c.full
}
