package hb

import "sync/atomic"

// A lineage is a chain of vclocks, each covering every one before it:
// a member's seq is its place in the chain, and head is the seq of the
// last member. So a member covers every member of its lineage with a
// smaller or equal seq, which [vclock.descends] answers with no walk of
// either.
//
// Invariant: for members u and v of one lineage, u.seq <= v.seq implies
// v covers u. A new vclock joins a lineage only as its next member, when
// it covers the lineage's last member (see descend): each member then
// covers its predecessor, and covering is transitive.
type lineage struct {
	// head is the seq of the lineage's last member. It only grows, by
	// compare-and-swap, so of two vclocks made at once from one member
	// only one continues the chain; the other starts a lineage of its own.
	// The compare-and-swap publishes nothing: a member's lin and seq are
	// set before it is shared, and reach another thread only through what
	// shares the vclock (a page lock, a barrier), whose unlock or release
	// synchronizes before that thread's reads of them.
	head atomic.Uint64
}

// descends reports whether v covers w by their lineage: w is a member of
// v's lineage no later than v.
func (v *vclock) descends(w *vclock) bool {
	return v.lin != nil && v.lin == w.lin && v.seq >= w.seq
}

// descend places v, a new vclock that covers a and b, in a lineage: as
// the next member of a's or b's when that one is its lineage's last
// member, else as the first of a new one. A small vclock, walked faster
// than a lineage is kept, gets none. v must not be shared yet.
func (v *vclock) descend(a, b *vclock) { v.descendFrom([]*vclock{a, b}) }

// descendFrom places v, a new vclock that covers every one of us, in a
// lineage, as descend does with two.
func (v *vclock) descendFrom(us []*vclock) {
	if v.size() < memoAt {
		return
	}
	for _, u := range us {
		if u.lin != nil && u.lin.head.CompareAndSwap(u.seq, u.seq+1) {
			v.lin, v.seq = u.lin, u.seq+1
			return
		}
	}
	v.lin = new(lineage)
}
