package hb

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// An epoch names one point of one thread's history in the precise mode:
// the thread's linear id in the grid, its block, and its clock there. The
// clock's high half counts the block-wide barriers the thread has passed
// (its generation), the low half its steps since the last one. An access
// is recorded as the epoch it was made at.
type epoch struct {
	tid, blk int32
	c        uint64
}

// gen returns the generation of the epoch: the block-wide barriers its
// thread had passed.
func (e epoch) gen() uint32 { return uint32(e.c >> 32) }

// A bgen is knowledge of a whole block: every event its threads made
// before its k-th block-wide barrier.
type bgen struct {
	blk int32
	k   uint32
}

// A vclock is a sparse vector clock: what its owner knows of other
// threads. Blocks whose barrier it learned of are one entry each (b);
// threads known beyond that are one entry each, sorted by thread, kept in
// chunks, and the chunks in bands, shared between vclocks (bands; see
// chunk.go and band.go).
// So it grows with the blocks and the threads that synchronized with
// its owner, not with the grid, and a barrier folds its block's threads
// into one entry. A vclock is immutable once made: threads that learned
// the same thing (at a barrier) share one.
//
// A large vclock belongs to a lineage (lin, seq; see lineage.go): a chain
// of vclocks each covering the one before, so that whether one covers an
// earlier member of its chain is answered without a walk. A lock handed
// from thread to thread builds one chain: each holder's release covers
// the release it acquired, and acquiring a later release of the chain
// than one already known costs no walk of the holders before it.
//
// A vclock that one link of such a chain made may also hold a few thread
// entries apart from its bands, its tail (see tail.go): the link shares
// its bands with the vclock it extends and adds its epoch there.
type vclock struct {
	bands []band // sorted by key; no epoch implied by b
	ne    int    // the epochs in bands
	b     []bgen // sorted by blk
	// tail holds thread entries beyond the bands': at most tailCap, of
	// distinct threads, each later than the bands' entry of its thread
	// (or its thread has none there) and implied by no block entry.
	tail []epoch
	lin  *lineage
	seq  uint64 // the vclock's place in lin
	// covered names vclocks of other lineages that this one is known to
	// cover, by their places in their lineages (see coverMemo), so that
	// joining one, or an earlier member of its lineage, costs no walk. A
	// place keeps only the lineage alive. It is the one field that changes
	// after a vclock is made, a memo that any thread's join may replace,
	// so it is read and written atomically; a replacement lost to another
	// thread's only costs a later walk.
	covered atomic.Pointer[coverMemo]
}

// A lineagePlace is a vclock's place in its lineage.
type lineagePlace struct {
	lin *lineage
	seq uint64
}

// size returns how many entries v has.
func (v *vclock) size() int { return v.ne + len(v.b) + len(v.tail) }

// blockK returns the barrier count of block blk that v knows, 0 if none.
// A short list, as a thread's of its own block and a few others, is
// walked: cheaper than a search.
func (v *vclock) blockK(blk int32) uint32 {
	if v == nil {
		return 0
	}
	if len(v.b) > shortBlocks {
		return searchBlocks(v.b, blk)
	}
	for _, g := range v.b {
		if g.blk >= blk {
			return g.kIf(blk)
		}
	}
	return 0
}

// shortBlocks is the longest block list blockK walks rather than searches.
const shortBlocks = 8

// kIf returns g's barrier count if g is of block blk, else 0.
func (g bgen) kIf(blk int32) uint32 {
	if g.blk != blk {
		return 0
	}
	return g.k
}

// searchBlocks returns the barrier count of block blk in bs, sorted by
// block, 0 if none.
func searchBlocks(bs []bgen, blk int32) uint32 {
	i, ok := slices.BinarySearchFunc(bs, blk, func(g bgen, b int32) int { return int(g.blk - b) })
	if !ok {
		return 0
	}
	return bs[i].k
}

// threadC returns the clock of thread tid that v holds an entry for, 0 if
// none.
func (v *vclock) threadC(tid int32) uint64 {
	if v == nil {
		return 0
	}
	if len(v.tail) > 0 {
		return max(v.bandC(tid), tailC(v.tail, tid))
	}
	return v.bandC(tid)
}

// bandC returns the clock of thread tid that v's bands hold, 0 if none.
// A chunk holding its whole run is indexed, not searched.
func (v *vclock) bandC(tid int32) uint64 {
	es := v.run(tid >> chunkBits)
	if len(es) == 1<<chunkBits {
		return es[tid&(1<<chunkBits-1)].c
	}
	j, ok := slices.BinarySearchFunc(es, tid, func(e epoch, t int32) int { return cmp.Compare(e.tid, t) })
	if !ok {
		return 0
	}
	return es[j].c
}

// knows reports whether the event at e is ordered before v's owner's
// next event. The block entries are asked first: they are few, and
// they order most of a block's accesses to its shared memory.
func (v *vclock) knows(e epoch) bool {
	return e.gen() < v.blockK(e.blk) || v.threadC(e.tid) >= e.c
}

// covers reports whether v knows everything w knows, counting the
// entries it walks in n. An earlier member of v's lineage is covered
// without a walk; otherwise it walks both in order (a thread's block
// grows with its id, so epochs sorted by thread are sorted by block
// too), then asks for each epoch of w's tail.
func (v *vclock) covers(w *vclock, n *counters) bool {
	if w == nil || v == w {
		return true
	}
	if v == nil {
		return w.size() == 0
	}
	if v.descends(w) {
		return true
	}
	ok, k := v.coversBlocks(w.b)
	if ok {
		var j int
		ok, j = v.coversThreads(w.bands)
		k += j
	}
	if ok && len(w.tail) > 0 {
		ok, k = v.knowsAll(w.tail), k+len(w.tail)
	}
	n.joined(k)
	return ok
}

// coversBlocks reports whether v knows every block entry of bs, and how
// many of them it walked.
func (v *vclock) coversBlocks(bs []bgen) (bool, int) {
	i := 0
	for j, g := range bs {
		for i < len(v.b) && v.b[i].blk < g.blk {
			i++
		}
		if i == len(v.b) || v.b[i].blk != g.blk || v.b[i].k < g.k {
			return false, j + 1
		}
	}
	return true, len(bs)
}

// coversThreads reports whether v knows every epoch of the bands wp by
// its thread entries or its block entries, and how many epochs it
// walked: none of a band or chunk v shares.
func (v *vclock) coversThreads(wp []band) (bool, int) {
	var vi, bi, walked int
	for _, wg := range wp {
		for vi < len(v.bands) && v.bands[vi].k < wg.k {
			vi++
		}
		var vc []chunk
		if vi < len(v.bands) && v.bands[vi].k == wg.k {
			if v.bands[vi].is(wg) {
				continue
			}
			vc = v.bands[vi].c()
		}
		ok, n := v.coversChunks(vc, wg.c(), &bi)
		if walked += n; !ok {
			return false, walked
		}
	}
	return true, walked
}

// coversChunks reports whether the chunks vc, v's of one band, or v's
// block entries from *bi on, know every epoch of the chunks ws, of the
// same band, and how many epochs it walked; *bi advances.
func (v *vclock) coversChunks(vc, ws []chunk, bi *int) (bool, int) {
	var vi, walked int
	for _, wc := range ws {
		k := wc.key()
		for vi < len(vc) && vc[vi].key() < k {
			vi++
		}
		var ve []epoch
		if vi < len(vc) && vc[vi].key() == k {
			if vc[vi].is(wc) {
				continue
			}
			ve = vc[vi].e()
		}
		ok, n := v.coversRun(ve, wc.e(), bi)
		if walked += n; !ok {
			return false, walked
		}
	}
	return true, walked
}

// coversRun reports whether the thread entries ve, v's tail, or v's
// block entries from *bi on, know every epoch of es, and how many of es
// it walked. Both lists are one chunk's run of threads, sorted; *bi
// advances.
func (v *vclock) coversRun(ve, es []epoch, bi *int) (bool, int) {
	ei := 0
	for j, e := range es {
		for ei < len(ve) && ve[ei].tid < e.tid {
			ei++
		}
		if ei < len(ve) && ve[ei].tid == e.tid && ve[ei].c >= e.c {
			continue
		}
		if len(v.tail) > 0 && tailC(v.tail, e.tid) >= e.c {
			continue
		}
		for *bi < len(v.b) && v.b[*bi].blk < e.blk {
			*bi++
		}
		if *bi == len(v.b) || v.b[*bi].blk != e.blk || e.gen() >= v.b[*bi].k {
			return false, j + 1
		}
	}
	return true, len(es)
}

// join returns the least vclock above a and b, reusing either when it
// already covers the other, and counts in n the entries it walked and
// wrote. A new vclock continues a's or b's lineage where it can; it has
// no tail (inputs with one are merged as mergeAll merges them).
func join(a, b *vclock, n *counters) *vclock {
	switch {
	case b == nil || a == b:
		return a
	case a == nil:
		return b
	}
	switch {
	case a.descends(b):
		return a
	case b.descends(a):
		return b
	case b.size() <= a.size() && a.remembers(b, n):
		return a
	case b.remembers(a, n):
		return b
	case len(a.tail) > 0 || len(b.tail) > 0:
		return mergeAll(a, []*vclock{b}, n)
	}
	v := &vclock{b: mergeBlocks(a.b, b.b)}
	bands, wrote := joinBands(a.bands, b.bands, v.b, cleanOf(a, b))
	v.bands = bands
	v.ne = bandEpochs(v.bands)
	n.joined(wrote)
	if n == nil || !n.flat {
		v.descend(a, b)
	}
	return v
}

// cleanOf returns the bands of whichever of a join's inputs a and b the
// join's block entries imply no epoch of: one whose block entries cover
// the other's, and are therefore the join's (see mergeBlocks), as an
// input's own block entries imply none of its epochs; nil if neither.
func cleanOf(a, b *vclock) []band {
	if ok, _ := a.coversBlocks(b.b); ok {
		return a.bands
	}
	if ok, _ := b.coversBlocks(a.b); ok {
		return b.bands
	}
	return nil
}

// memoAt is the size from which a vclock remembers the last vclock it
// covered, and belongs to a lineage: a smaller one is walked faster than
// a memo is made.
const memoAt = 32

// remembers reports whether v covers w, remembering the answer for a
// large w of a lineage: v then covers every member of w's lineage up to w
// (see coverMemo).
func (v *vclock) remembers(w *vclock, n *counters) bool {
	if w.size() < memoAt {
		return v.covers(w, n)
	}
	if v.descends(w) {
		return true
	}
	m := v.covered.Load()
	if w.lin != nil && m.covers(w) {
		return true
	}
	if !v.covers(w, n) {
		return false
	}
	if w.lin != nil {
		v.covered.Store(m.with(lineagePlace{w.lin, w.seq}))
	}
	return true
}

// mergeBlocks merges two block lists, keeping each block's larger count.
func mergeBlocks(a, b []bgen) []bgen {
	if len(b) == 0 {
		return a // vclocks are immutable: the list is shared, not copied
	}
	if len(a) == 0 {
		return b
	}
	out := make([]bgen, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].blk < b[0].blk:
			out, a = append(out, a[0]), a[1:]
		case b[0].blk < a[0].blk:
			out, b = append(out, b[0]), b[1:]
		default:
			out = append(out, bgen{a[0].blk, max(a[0].k, b[0].k)})
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// mergeThreads merges two epoch lists sorted by thread, keeping each
// thread's later epoch, into a new list.
func mergeThreads(a, b []epoch) []epoch {
	out := make([]epoch, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].tid < b[0].tid:
			out, a = append(out, a[0]), a[1:]
		case b[0].tid < a[0].tid:
			out, b = append(out, b[0]), b[1:]
		default:
			e := a[0]
			e.c = max(a[0].c, b[0].c)
			out = append(out, e)
			a, b = a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// withBlock returns v joined with knowledge of block blk up to its k-th
// barrier.
func withBlock(v *vclock, blk int32, k uint32, n *counters) *vclock {
	return join(v, &vclock{b: []bgen{{blk, k}}}, n)
}

// A view is what a thread knew at one point: its vclock and its own
// epoch. A fence or release keeps a view rather than building a vclock,
// so that it costs no copy until another thread acquires it. The zero
// view knows nothing.
type view struct {
	k     *vclock
	self  epoch
	known bool
}

// joinView returns the least vclock above a and w, counting in n.
func joinView(a *vclock, w view, n *counters) *vclock {
	if !w.known {
		return a
	}
	a = join(a, w.k, n)
	if a.knows(w.self) {
		return a
	}
	return withEpoch(a, w.self, n)
}
