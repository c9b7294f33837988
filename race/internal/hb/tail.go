package hb

import "slices"

// tailCap is the most entries a vclock's tail holds. A link that would
// hold more folds them into the bands, so a chain of links copies its
// bands' changed runs once every tailCap links, not at each.
const tailCap = 16

// A link is a vclock that extends another by a few epochs, and its
// tail's room, in one allocation. The next link of a fence.sc chain, or
// the next holder's view of a lock handed from thread to thread, knows
// what the one before knew and one epoch more: kept in the tail, it
// shares the other's bands, where setting the epoch in them would copy
// its chunk, its band's list of chunks and the list of bands, each an
// allocation. The tail's room holds no pointer, so the collector scans
// only the vclock.
type link struct {
	v    vclock
	room [tailCap]epoch
}

// withEpochs returns a vclock above v (nil allowed) that also knows es,
// epochs v does not know: a link sharing v's bands whose tail is v's
// with es set in it, or, when they do not fit, a vclock with no tail
// that holds them in its bands. It continues v's lineage, as join would,
// and counts in n the entries it wrote.
func withEpochs(v *vclock, es []epoch, n *counters) *vclock {
	if v == nil {
		return threadsClock(latestOf(es))
	}
	size := tailSize(v.tail, es)
	if size > tailCap {
		return folded(v, es, n)
	}
	out, t := newLink(size)
	out.bands, out.ne, out.b = v.bands, v.ne, v.b
	t = append(t, v.tail...)
	for _, e := range es {
		t = setTail(t, e)
	}
	out.tail = t
	n.joined(len(t))
	if n == nil || !n.flat {
		out.descend(v, v)
	}
	return out
}

// newLink returns a zero vclock and, in the same allocation, room for a
// tail of n entries: the smallest of 2, 4, 8 and tailCap that holds n. A
// chain's tail grows by an entry a link, so most links are made with
// less than tailCap entries, and the collector then has that much less
// to sweep and to pace its cycles by.
func newLink(n int) (*vclock, []epoch) {
	switch {
	case n <= 2:
		l := new(struct {
			v    vclock
			room [2]epoch
		})
		return &l.v, l.room[:0]
	case n <= 4:
		l := new(struct {
			v    vclock
			room [4]epoch
		})
		return &l.v, l.room[:0]
	case n <= 8:
		l := new(struct {
			v    vclock
			room [8]epoch
		})
		return &l.v, l.room[:0]
	}
	l := new(link)
	return &l.v, l.room[:0]
}

// folded returns a vclock with no tail above v that also knows es,
// epochs v does not know: v's bands joined with its tail and es, as
// join joins two vclocks, sharing the bands and chunks that did not
// change.
func folded(v *vclock, es []epoch, n *counters) *vclock {
	out := &vclock{bands: v.bands, b: v.b}
	n.joined(out.fold(append(slices.Clone(v.tail), es...)))
	out.ne = bandEpochs(out.bands)
	if n == nil || !n.flat {
		out.descend(v, v)
	}
	return out
}

// fold joins the epochs es, which v's block entries do not imply, into
// the bands of v, a vclock not yet shared, and returns the entries it
// wrote. Only the bands and chunks es falls in are copied; the walk
// keeps its state on the heap, not in a join's buffers on the stack, as
// it runs at the end of a fence, deep in a fiber's small stack.
func (v *vclock) fold(es []epoch) int {
	es = latestIn(es)
	out := make([]band, 0, len(v.bands)+len(es))
	ps, wrote := v.bands, 0
	for len(es) > 0 {
		k := es[0].tid >> (chunkBits + bandBits)
		i := 1
		for i < len(es) && es[i].tid>>(chunkBits+bandBits) == k {
			i++
		}
		for len(ps) > 0 && ps[0].k < k {
			out, ps = append(out, ps[0]), ps[1:]
		}
		var old []chunk
		if len(ps) > 0 && ps[0].k == k {
			old, ps = ps[0].c(), ps[1:]
		}
		cs, w := foldChunks(old, es[:i])
		out, wrote, es = append(out, bandOf(k, cs)), wrote+w, es[i:]
	}
	v.bands = append(out, ps...)
	return wrote + len(v.bands)
}

// foldChunks returns a new list of the chunks cs, sorted by key, with
// the epochs es, sorted by thread, of their run of keys set in them (a
// thread's later epoch kept), and the entries it wrote.
func foldChunks(cs []chunk, es []epoch) ([]chunk, int) {
	out := make([]chunk, 0, len(cs)+len(es))
	wrote := 0
	for len(es) > 0 {
		k := es[0].tid >> chunkBits
		i := 1
		for i < len(es) && es[i].tid>>chunkBits == k {
			i++
		}
		for len(cs) > 0 && cs[0].key() < k {
			out, cs = append(out, cs[0]), cs[1:]
		}
		var old []epoch
		if len(cs) > 0 && cs[0].key() == k {
			old, cs = cs[0].e(), cs[1:]
		}
		run := mergeThreads(old, es[:i])
		out, wrote, es = append(out, chunkOf(k, run)), wrote+len(run), es[i:]
	}
	out = append(out, cs...)
	return out, wrote + len(out)
}

// withEpoch is withEpochs for one epoch e.
func withEpoch(v *vclock, e epoch, n *counters) *vclock {
	return withEpochs(v, []epoch{e}, n)
}

// tailSize returns how many entries the tail t holds with the epochs es
// set in it.
func tailSize(t, es []epoch) int {
	n := len(t)
	for i, e := range es {
		if !hasThread(t, e.tid) && !hasThread(es[:i], e.tid) {
			n++
		}
	}
	return n
}

// hasThread reports whether es holds an epoch of thread tid.
func hasThread(es []epoch, tid int32) bool {
	for _, e := range es {
		if e.tid == tid {
			return true
		}
	}
	return false
}

// setTail sets e in the tail t, which has room for it: its thread's
// entry, if t has one, to the later of the two, else a new entry.
func setTail(t []epoch, e epoch) []epoch {
	for i := range t {
		if t[i].tid == e.tid {
			t[i].c = max(t[i].c, e.c)
			return t
		}
	}
	return append(t, e)
}

// tailC returns the clock of thread tid in the tail t, 0 if none.
func tailC(t []epoch, tid int32) uint64 {
	for _, e := range t {
		if e.tid == tid {
			return e.c
		}
	}
	return 0
}

// knowsAll reports whether v knows every epoch of es.
func (v *vclock) knowsAll(es []epoch) bool {
	for _, e := range es {
		if !v.knows(e) {
			return false
		}
	}
	return true
}

// tailsOf returns the entries of the tails of acc and rest, nil if they
// have none.
func tailsOf(acc *vclock, rest []*vclock) []epoch {
	out := slices.Clone(acc.tail)
	for _, v := range rest {
		out = append(out, v.tail...)
	}
	return out
}
