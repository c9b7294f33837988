package hb

// Recycling full states. A shadow that serves again (a device's global
// memory for the next cohort, see reuse.go; a block's shared memory for
// the launch's next block, see pblock.foreign) empties each page at its
// first visit in the new generation (page.renew). The full states of the
// page's cells, with the sets and member indexes they grew, are kept
// for the page's cells to take again rather than made anew: a kernel
// launched again on the same buffers, or a grid whose blocks each fill
// a shared histogram, would otherwise make the same states, grow the
// same sets and build the same indexes generation after generation, and
// the collector would scan every thread's stack each time it reclaimed
// them. A page's spares are what its cells held at once, emptied: each
// one a cell takes it gives back at the next renewal.

// spares are a page's emptied full states and sets.
type spares struct {
	locs []*ploc
	sets []*threadSet
}

// recycle empties every full state of the page's cells into its spares
// and forgets that the page was crowded (the spares keep their room).
// Preconditions: the page lock held.
func (f *fullStates) recycle() {
	for i, loc := range f.locs {
		if loc == nil {
			continue
		}
		if f.spare == nil {
			f.spare = new(spares)
		}
		loc.empty(f.spare)
		f.spare.locs = append(f.spare.locs, loc)
		f.locs[i] = nil
	}
	f.crowded = false
}

// newLoc returns an empty full state: a spare if the page has one, else
// a new one, roomy if the page is crowded.
func (f *fullStates) newLoc() *ploc {
	if s := f.spare; s != nil && len(s.locs) > 0 {
		loc := s.locs[len(s.locs)-1]
		s.locs = s.locs[:len(s.locs)-1]
		return loc
	}
	return newPloc(f.crowded)
}

// newSet returns an empty set, made for an access of a thread whose
// block's keys are run, that indexes its members past indexAt of them: a
// spare if the page has one, else a new one. f may be nil.
func (f *fullStates) newSet(indexAt int, run keyRun) *threadSet {
	if f == nil || f.spare == nil || len(f.spare.sets) == 0 {
		return newThreadSet(indexAt, run)
	}
	s := f.spare
	w := s.sets[len(s.sets)-1]
	s.sets = s.sets[:len(s.sets)-1]
	w.indexAt, w.run = indexAt, run
	return w
}

// empty leaves loc as newPloc makes it, but for the room its list grew,
// and gives its sets, emptied, to s.
func (loc *ploc) empty(s *spares) {
	for _, w := range [...]*threadSet{loc.wide, loc.blk, loc.reads} {
		if w != nil {
			w.empty()
			s.sets = append(s.sets, w)
		}
	}
	*loc = ploc{recs: loc.recs[:0]}
}

// empty drops every member and the index, keeping the room of both: the
// index's table waits in room for the set's next index.
func (w *threadSet) empty() {
	w.members, w.tids = w.members[:0], 0
	w.dropped(0)
	if w.at != nil {
		w.at.clear()
		w.room = w.at
	}
	w.at, w.hi = nil, nil
}
