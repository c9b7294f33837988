package race

import (
	"slices"

	"github.com/warpguard/warpguard/scope"
)

// A wideSet holds a location's strong accesses of device or system
// scope, at most one read and one write per thread: any two of them are
// a morally strong pair, and so is each with any later wide access, which
// therefore skips them all. Only a weak or narrower access is checked
// against them one by one. A hot atomic counter, which every thread of a
// launch updates, so costs a map update per access instead of a walk of
// every earlier thread.
type wideSet struct {
	members []prec
	at      map[int32]int32 // 2*tid+write → index in members, once there are many
}

// wideIndexAt is how many members a set holds before it indexes them.
const wideIndexAt = 8

// wide reports whether x is a wide access: strong, of device scope or
// more, which includes every thread of a launch.
func (x *prec) wide() bool { return x.strong() && x.scope >= scope.Device }

func wideKey(x *prec) int32 {
	if x.write {
		return 2*x.e.tid + 1
	}
	return 2 * x.e.tid
}

// put records wide access x, replacing the thread's earlier one of the
// same kind: it is ordered before x and races with whatever x races with.
func (w *wideSet) put(x *prec) {
	k := wideKey(x)
	if i, ok := w.find(k); ok {
		w.members[i] = *x
		return
	}
	w.members = append(w.members, *x)
	if w.at != nil {
		w.at[k] = int32(len(w.members) - 1)
	} else if len(w.members) > wideIndexAt {
		w.index()
	}
}

// find returns the index of the member with key k.
func (w *wideSet) find(k int32) (int, bool) {
	if w.at != nil {
		i, ok := w.at[k]
		return int(i), ok
	}
	i := slices.IndexFunc(w.members, func(y prec) bool { return wideKey(&y) == k })
	return i, i >= 0
}

// index builds the member index.
func (w *wideSet) index() {
	w.at = make(map[int32]int32, 2*len(w.members))
	for i := range w.members {
		w.at[wideKey(&w.members[i])] = int32(i)
	}
}

// check returns a member that races with x, a weak or narrow access of
// th, or nil; it drops the members x makes redundant.
func (w *wideSet) check(th *pthread, x *prec) *prec {
	for i := range w.members {
		if th.races(x, &w.members[i]) {
			return &w.members[i]
		}
	}
	n := len(w.members)
	w.members = th.prune(w.members, x)
	if len(w.members) != n && w.at != nil {
		w.index()
	}
	return nil
}
