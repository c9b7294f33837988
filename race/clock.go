package race

import "slices"

// An epoch names one point of one thread's history in the precise mode:
// the thread's linear id in the grid and its clock there. An access is
// recorded as the epoch it was made at.
type epoch struct {
	tid int32
	c   uint32
}

// A vclock is a sparse vector clock: the epochs a thread knows of other
// threads, sorted by thread id, one per thread. It holds only the threads
// something ordered before its owner, so it grows with the synchronization
// a thread took part in, not with the grid. A vclock is immutable once
// made: threads that learned the same thing (at a barrier) share one.
type vclock struct {
	e []epoch
}

// get returns the clock of thread tid that v knows, 0 if none.
func (v *vclock) get(tid int32) uint32 {
	if v == nil {
		return 0
	}
	i, ok := slices.BinarySearchFunc(v.e, tid, func(e epoch, t int32) int { return int(e.tid - t) })
	if !ok {
		return 0
	}
	return v.e[i].c
}

// covers reports whether v knows every epoch of w.
func (v *vclock) covers(w *vclock) bool {
	if w == nil || v == w {
		return true
	}
	for _, e := range w.e {
		if v.get(e.tid) < e.c {
			return false
		}
	}
	return true
}

// join returns the least vclock above a and b, reusing either when it
// already covers the other.
func join(a, b *vclock) *vclock {
	switch {
	case b == nil || a == b:
		return a
	case a == nil:
		return b
	case len(b.e) <= len(a.e) && a.covers(b):
		return a
	case len(a.e) <= len(b.e) && b.covers(a):
		return b
	}
	return &vclock{e: merge(a.e, b.e)}
}

// merge merges two epoch lists sorted by thread, keeping each thread's
// later epoch.
func merge(a, b []epoch) []epoch {
	out := make([]epoch, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].tid < b[0].tid:
			out, a = append(out, a[0]), a[1:]
		case b[0].tid < a[0].tid:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, epoch{a[0].tid, max(a[0].c, b[0].c)})
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// A view is what a thread knew at one point: its vclock and its own
// epoch. A fence or release keeps a view rather than building a vclock,
// so that it costs no copy until another thread acquires it.
// The zero view knows nothing.
type view struct {
	k     *vclock
	self  epoch
	known bool
}

// joinView returns the least vclock above a and w.
func joinView(a *vclock, w view) *vclock {
	if !w.known {
		return a
	}
	a = join(a, w.k)
	if a.get(w.self.tid) >= w.self.c {
		return a
	}
	return join(a, &vclock{e: []epoch{w.self}})
}
