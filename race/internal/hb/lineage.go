package hb

import "sync/atomic"

// A lineage is a chain of vclocks, each covering every one before it:
// a member's seq is its place in the chain, and head is the seq of the
// last member. So a member covers every member of its lineage with a
// smaller or equal seq, which [vclock.descends] answers with no walk of
// either.
//
// A vclock made from members that are not their lineage's last starts a
// lineage of its own, which remembers where it forked: the places of
// the inputs its first member covers, and the places those inputs'
// lineages forked from, up to forkPlaces of them. Every member of the
// new lineage covers its first, so each covers those places too.
//
// Invariant: for members u and v of one lineage, u.seq <= v.seq implies
// v covers u; and every member of a lineage covers each place in its
// from, with every member of that place's lineage up to the place's seq.
// A new vclock joins a lineage only as its next member, when it covers
// the lineage's last member (see descend), and a lineage's from is set
// before its first member is shared.
type lineage struct {
	// head is the seq of the lineage's last member. It only grows, by
	// compare-and-swap, so of two vclocks made at once from one member
	// only one continues the chain; the other starts a lineage of its own.
	// The compare-and-swap publishes nothing: a member's lin and seq are
	// set before it is shared, and reach another thread only through what
	// shares the vclock (a page lock, a barrier), whose unlock or release
	// synchronizes before that thread's reads of them.
	head atomic.Uint64
	// tag names the lineage in other lineages' from: a lineage that
	// named its ancestors by pointer would keep every one alive.
	tag  *lineageTag
	from [forkPlaces]forkPlace
}

// forkPlaces is the most places a lineage remembers it forked from.
const forkPlaces = 4

// A lineageTag is a lineage's identity in another's from: an object of
// its own, holding no pointer, so that a lineage keeps alive the tags
// of its ancestors and not the ancestors.
type lineageTag struct{ _ byte }

// A forkPlace is a member of another lineage that a lineage's first
// member covers: that lineage's tag and the member's seq. A nil tag
// ends a from list.
type forkPlace struct {
	tag *lineageTag
	seq uint64
}

// descends reports whether v covers w by their lineages: w is a member
// of v's lineage no later than v, or of one v's lineage forked from,
// no later than the fork's place.
func (v *vclock) descends(w *vclock) bool {
	if v.lin != nil && v.lin == w.lin {
		return v.seq >= w.seq
	}
	return v.lin != nil && w.lin != nil && v.lin.from[0].tag != nil && v.lin.forkedAfter(w)
}

// forkedAfter reports whether l forked from w's lineage at w or after.
func (l *lineage) forkedAfter(w *vclock) bool {
	for _, p := range l.from {
		if p.tag == nil {
			return false
		}
		if p.tag == w.lin.tag {
			return p.seq >= w.seq
		}
	}
	return false
}

// descend places v, a new vclock that covers a and b, in a lineage: as
// the next member of a's or b's when that one is its lineage's last
// member, else as the first of a new one. A small vclock, walked faster
// than a lineage is kept, gets none. v must not be shared yet.
func (v *vclock) descend(a, b *vclock) { v.descendFrom([]*vclock{a, b}) }

// descendFrom places v, a new vclock that covers every one of us, in a
// lineage, as descend does with two: a new lineage remembers the places
// of us it forks from. v's memo of what it covers starts from theirs
// (see inherit).
func (v *vclock) descendFrom(us []*vclock) {
	if v.size() < memoAt {
		return
	}
	v.place(us)
	v.inherit(us)
}

// place puts v, a new vclock that covers every one of us, in a lineage:
// as the next member of the first of us that is its lineage's last
// member, else as the first member of a new one.
func (v *vclock) place(us []*vclock) {
	for _, u := range us {
		if u.lin != nil && u.lin.head.CompareAndSwap(u.seq, u.seq+1) {
			v.lin, v.seq = u.lin, u.seq+1
			return
		}
	}
	v.lin = forkOf(us)
}

// forkOf returns a new lineage whose first member covers each of us:
// its from holds the places of those with a lineage, then the places
// their lineages forked from, as many as fit.
func forkOf(us []*vclock) *lineage {
	l := &lineage{tag: new(lineageTag)}
	for _, u := range us {
		if u.lin != nil {
			l.add(forkPlace{u.lin.tag, u.seq})
		}
	}
	for _, u := range us {
		if u.lin != nil {
			for _, p := range u.lin.from {
				l.add(p)
			}
		}
	}
	return l
}

// add adds p to l's from, if there is room and p is a place: a tag
// already there keeps the later seq, so forkedAfter may stop at the
// first entry with w's tag.
func (l *lineage) add(p forkPlace) {
	if p.tag == nil {
		return
	}
	for i := range l.from {
		switch l.from[i].tag {
		case nil:
			l.from[i] = p
			return
		case p.tag:
			l.from[i].seq = max(l.from[i].seq, p.seq)
			return
		}
	}
}

// covers reports whether the member at p covers w by their lineages, as
// descends does for a vclock at p. w has a lineage.
func (p *lineagePlace) covers(w *vclock) bool {
	if p.lin == w.lin {
		return p.seq >= w.seq
	}
	return p.lin.forkedAfter(w)
}
