package hb

// A set's chain. A set's members are often ordered one after another: a
// word that every holder of a lock reads and writes in turn, a flag
// passed from thread to thread. Then the last member put follows every
// other in happens-before, and an access whose thread knows that member
// follows them all, by transitivity: its vclock covers the member
// thread's at the member's epoch, which covered every member before.
// Such an access races with no member, and its check need not compare
// them one by one (checkLanes' lane walk on every volatile access of a
// lock-protected word; check's walk).
//
// The set keeps last, the member put last (one more than its index; 0
// for none), and broken, which says a member was put that did not
// follow last (or some members were dropped, so that last's place is
// lost): while broken is false, every member happens before last or is
// last. An empty set's chain holds. A set's members move only when a
// prune drops some (see threadSet.check), which breaks the chain unless
// none is left.

// followedBy reports whether every member of w happens before th's next
// event by the set's chain: the chain holds and th made its last member
// or knows it. False says nothing.
func (w *threadSet) followedBy(th *pthread) bool {
	if w.broken {
		return false
	}
	return w.last == 0 || th.knows(w.members[w.last-1].e)
}

// chained notes that member i was just put; after says its access
// followed every member before it (see followedBy). A lone member is a
// chain.
func (w *threadSet) chained(i int, after bool) {
	w.broken, w.last = !after && len(w.members) > 1, int32(i)+1
}

// dropped notes that a prune left n members: the chain's last member may
// be gone, so only an emptied set keeps a chain.
func (w *threadSet) dropped(n int) {
	w.last, w.broken = 0, n > 0
}

// chainAt is the fewest members a set's check asks its chain about before
// walking them: a shorter walk costs less than the lookup.
const chainAt = 4
