package hb

import (
	"cmp"
	"slices"
	"unsafe"
)

// chunkBits sets the run of thread ids one chunk covers: the threads
// whose ids agree but in their low chunkBits bits.
const chunkBits = 4

// A chunk is a vclock's thread entries for one run of thread ids (see
// chunkBits): nonempty and sorted by thread. It is immutable, so vclocks
// that hold the same entries for those threads share it: a join copies
// only the chunks in which its inputs differ, and a covers check skips
// the chunks they share, so neither grows with threads whose entries
// did not change.
//
// Chunks are held by value in a band's list (see band.go), each as its
// first entry, its length and its run's key, 16 bytes: walking a list by
// key reads no entry, and two chunks are the same chunk when they hold
// the same entries (see is).
type chunk struct {
	p    *epoch // the first entry
	n, k int32  // the entries, and the run: their threads' ids shifted right by chunkBits
}

// runOf returns the chunk of the entries es, nonempty and of one run.
func runOf(es []epoch) chunk { return chunkOf(es[0].tid>>chunkBits, es) }

// e returns c's entries: written only by the join that made c, before
// any vclock holding it is shared.
func (c chunk) e() []epoch { return unsafe.Slice(c.p, c.n) }

// key returns the run of thread ids c covers.
func (c chunk) key() int32 { return c.k }

// chunkOf returns the chunk of run k holding es, empty when es is.
func chunkOf(k int32, es []epoch) chunk {
	if len(es) == 0 {
		return chunk{k: k}
	}
	return chunk{p: &es[0], n: int32(len(es)), k: k}
}

// is reports whether c and d are one chunk: the same entries, shared.
func (c chunk) is(d chunk) bool { return c.p == d.p && c.n == d.n }

// chunked splits es, sorted by thread, into chunks.
func chunked(es []epoch) []chunk {
	var out []chunk
	for len(es) > 0 {
		i, k := 1, es[0].tid>>chunkBits
		for i < len(es) && es[i].tid>>chunkBits == k {
			i++
		}
		out, es = append(out, runOf(es[:i:i])), es[i:]
	}
	return out
}

// threadsClock returns a vclock holding the epochs es, sorted by thread,
// and no block entries.
func threadsClock(es []epoch) *vclock {
	return &vclock{bands: banded(chunked(es)), ne: len(es)}
}

// findChunk returns the index of the chunk of cs with key k, and whether
// there is one.
func findChunk(cs []chunk, k int32) (int, bool) {
	if len(cs) > 0 { // a list with every run from its first one's is indexed
		if i := int(k - cs[0].k); i >= 0 && i < len(cs) && cs[i].k == k {
			return i, true
		}
	}
	return slices.BinarySearchFunc(cs, k, func(c chunk, k int32) int { return cmp.Compare(c.k, k) })
}

// A chunkJoin is the output of a join's chunks of one band as it is
// built (see bandJoin): the chunks so far (out[:n]; a band holds at most
// 1<<bandBits), the block entries that prune them, walked from bi on,
// the clean chunks not yet passed, and the entries written. It holds its
// chunks by value, so that a join's room for them stays on its stack.
type chunkJoin struct {
	out   [1 << bandBits]chunk
	n     int
	bs    []bgen
	bi    int
	clean []chunk
	wrote int
}

// add appends c, the next chunk by key, without the epochs the block
// entries imply: pruned in place when made is set (the join made c),
// else copied if it holds any; a chunk left empty is dropped.
func (j *chunkJoin) add(c chunk, made bool) {
	switch {
	case len(j.bs) == 0 || holds(&j.clean, c):
	case made:
		c = chunkOf(c.k, pruneRun(c.e(), j.bs, &j.bi, c.e()[:0]))
	default:
		c = chunkOf(c.k, pruneRun(c.e(), j.bs, &j.bi, nil))
	}
	if c.n > 0 {
		j.out[j.n], j.n = c, j.n+1
	}
}

// chunks returns the chunks so far.
func (j *chunkJoin) chunks() []chunk { return j.out[:j.n] }

// mergeChunk returns the merge of two chunks of one key, reusing either
// when its entries cover the other's, the entries it walked or wrote, and
// whether it made a new chunk.
func mergeChunk(x, y chunk) (chunk, int, bool) {
	switch {
	case x.is(y):
		return x, 0, false
	case entriesCover(x.e(), y.e()):
		return x, len(y.e()), false
	case entriesCover(y.e(), x.e()):
		return y, len(x.e()) + len(y.e()), false
	}
	e := mergeThreads(x.e(), y.e())
	return runOf(e), len(x.e()) + len(y.e()) + len(e), true
}

// entriesCover reports whether xs holds, for every epoch of ys, one of
// its thread no earlier. Both are sorted by thread.
func entriesCover(xs, ys []epoch) bool {
	if len(xs) < len(ys) {
		return false
	}
	i := 0
	for _, y := range ys {
		for i < len(xs) && xs[i].tid < y.tid {
			i++
		}
		if i == len(xs) || xs[i].tid != y.tid || xs[i].c < y.c {
			return false
		}
	}
	return true
}

// holds reports whether c is one of the chunks of *cs, a list sorted by
// key, which it advances past the chunks of keys below c's: called with
// chunks of rising keys, it walks *cs once.
func holds(cs *[]chunk, c chunk) bool {
	if len(*cs) == 0 {
		return false
	}
	k := c.key()
	for len(*cs) > 0 && (*cs)[0].key() < k {
		*cs = (*cs)[1:]
	}
	return len(*cs) > 0 && (*cs)[0].is(c)
}

// pruneRun returns es without the epochs the block entries bs imply:
// es itself if none is; else, when into is nil, a new list, and when it
// is es[:0], es filtered in place. bs is walked from *bi on, which it
// advances: the epochs of later runs have later blocks.
func pruneRun(es []epoch, bs []bgen, bi *int, into []epoch) []epoch {
	out, dropped := into, false
	for i, e := range es {
		for *bi < len(bs) && bs[*bi].blk < e.blk {
			*bi++
		}
		implied := *bi < len(bs) && bs[*bi].blk == e.blk && e.gen() < bs[*bi].k
		switch {
		case implied && !dropped:
			dropped = true
			if out == nil {
				out = make([]epoch, 0, len(es)-1)
			}
			out = append(out[:0], es[:i]...)
		case !implied && dropped:
			out = append(out, e)
		}
	}
	if !dropped {
		return es
	}
	return out
}

// epochCount returns how many epochs the chunks cs hold.
func epochCount(cs []chunk) int {
	n := 0
	for _, c := range cs {
		n += int(c.n)
	}
	return n
}

// A runCursor reads a vclock's thread entries for ids asked in rising
// order, walking each band and chunk once instead of searching them per
// id: the lanes of a warp, say.
type runCursor struct {
	v          *vclock
	pi, ci, ei int // the band, the chunk in it and the entry in that the walk has reached
}

// threadC returns the clock of thread tid that the vclock holds an entry
// for, 0 if none. tid is no lower than the last id asked.
func (c *runCursor) threadC(tid int32) uint64 {
	if c.v == nil {
		return 0
	}
	if len(c.v.tail) > 0 {
		return max(c.bandC(tid), tailC(c.v.tail, tid))
	}
	return c.bandC(tid)
}

// bandC returns the clock of thread tid that the vclock's bands hold, 0
// if none. tid is no lower than the last id asked.
func (c *runCursor) bandC(tid int32) uint64 {
	k := tid >> chunkBits
	ps, pk := c.v.bands, k>>bandBits
	for c.pi < len(ps) && ps[c.pi].k < pk {
		c.pi, c.ci, c.ei = c.pi+1, 0, 0
	}
	if c.pi == len(ps) || ps[c.pi].k != pk {
		return 0
	}
	ch := ps[c.pi].c()
	for c.ci < len(ch) && ch[c.ci].key() < k {
		c.ci, c.ei = c.ci+1, 0
	}
	if c.ci == len(ch) || ch[c.ci].key() != k {
		return 0
	}
	es := ch[c.ci].e()
	for c.ei < len(es) && es[c.ei].tid < tid {
		c.ei++
	}
	if c.ei < len(es) && es[c.ei].tid == tid {
		return es[c.ei].c
	}
	return 0
}
