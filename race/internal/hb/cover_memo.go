package hb

// A coverMemo is what a vclock is known to cover beyond its own lineage:
// the places of up to coverPlaces vclocks of other lineages, the latest
// first. A place comes from a walk that found the vclock covers the one
// at the place, or from the vclocks a new one was made to cover (see
// vclock.inherit). The vclock then covers every member of the place's
// lineage up to it, and of the lineages that one forked from (see
// lineagePlace.covers), with no walk. A memo is immutable once shared: a
// vclock that learns another place gets a new memo.
type coverMemo struct {
	at [coverPlaces]lineagePlace // a nil lin ends the list
}

// coverPlaces is the most places a memo holds: a fence joins a thread's
// view with the parts of the release it holds and its scope instances'
// views, which are mostly of a few lineages each.
const coverPlaces = 4

// covers reports whether m names a place that covers w, which has a
// lineage.
func (m *coverMemo) covers(w *vclock) bool {
	if m == nil {
		return false
	}
	for i := range m.at {
		p := &m.at[i]
		if p.lin == nil {
			return false
		}
		if p.covers(w) {
			return true
		}
	}
	return false
}

// with returns a memo holding p first, then the places of m that p does
// not replace (those of p's lineage, which are earlier), as many as fit.
func (m *coverMemo) with(p lineagePlace) *coverMemo {
	out := &coverMemo{}
	out.at[0] = p
	if m == nil {
		return out
	}
	k := 1
	for _, q := range m.at {
		if q.lin == nil || k == coverPlaces {
			break
		}
		if q.lin != p.lin {
			out.at[k], k = q, k+1
		}
	}
	return out
}

// inherit starts the memo of v, a new vclock in a lineage that covers
// every one of us and is not yet shared: the first memo of us, which v
// covers by covering its holder, with the places of us that v's lineage
// does not already answer for (see descends). One whose lineage v
// continues, or that v's new lineage forked from, needs no place.
func (v *vclock) inherit(us []*vclock) {
	var m *coverMemo
	for _, u := range us {
		if m = u.covered.Load(); m != nil {
			break
		}
	}
	for _, u := range us {
		if u.lin != nil && !v.descends(u) && !m.covers(u) {
			m = m.with(lineagePlace{u.lin, u.seq})
		}
	}
	if m != nil {
		v.covered.Store(m)
	}
}
