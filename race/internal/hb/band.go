package hb

import (
	"cmp"
	"slices"
	"unsafe"
)

// bandBits sets the run of chunk keys one band covers: the chunks whose
// keys agree but in their low bandBits bits.
const bandBits = 4

// A band is a vclock's chunks for one run of chunk keys (see bandBits):
// nonempty and sorted by key. Like a chunk it is immutable, and vclocks
// that hold the same chunks for those keys share it. So a join that
// changes one thread's entry (or folds a chain's tail, see tail.go)
// copies one chunk's entries, one band's chunks and the list of bands,
// where one flat list would copy every chunk's place; and a join or a
// covers check skips the bands its inputs share, as it skips chunks.
//
// Bands are held by value in a vclock's list, as chunks are in a band's:
// the first chunk, the chunks, the run's key and the epochs they hold.
type band struct {
	p      *chunk // the first chunk
	n, k   int32  // the chunks, and the run: their keys shifted right by bandBits
	epochs int32  // the epochs the chunks hold
}

// c returns g's chunks: written only by the join that made g, before
// any vclock holding it is shared.
func (g band) c() []chunk { return unsafe.Slice(g.p, g.n) }

// is reports whether g and h are one band: the same chunks, shared.
func (g band) is(h band) bool { return g.p == h.p && g.n == h.n }

// bandOf returns the band of run k holding cs, sorted chunks of that
// run; empty (n 0) when cs is.
func bandOf(k int32, cs []chunk) band {
	if len(cs) == 0 {
		return band{k: k}
	}
	return band{p: &cs[0], n: int32(len(cs)), k: k, epochs: int32(epochCount(cs))}
}

// banded splits cs, sorted by key, into bands.
func banded(cs []chunk) []band {
	var out []band
	for len(cs) > 0 {
		i, k := 1, cs[0].key()>>bandBits
		for i < len(cs) && cs[i].key()>>bandBits == k {
			i++
		}
		out, cs = append(out, bandOf(k, cs[:i:i])), cs[i:]
	}
	return out
}

// findBand returns the index of the band of ps with key k, and whether
// there is one.
func findBand(ps []band, k int32) (int, bool) {
	if len(ps) > 0 { // a list with every run from its first one's is indexed
		if i := int(k - ps[0].k); i >= 0 && i < len(ps) && ps[i].k == k {
			return i, true
		}
	}
	return slices.BinarySearchFunc(ps, k, func(g band, k int32) int { return cmp.Compare(g.k, k) })
}

// run returns v's entries of the chunk of key k, nil if it has none.
func (v *vclock) run(k int32) []epoch {
	pi, ok := findBand(v.bands, k>>bandBits)
	if !ok {
		return nil
	}
	cs := v.bands[pi].c()
	ci, ok := findChunk(cs, k)
	if !ok {
		return nil
	}
	return cs[ci].e()
}

// bandEpochs returns how many epochs the bands ps hold.
func bandEpochs(ps []band) int {
	n := 0
	for _, g := range ps {
		n += int(g.epochs)
	}
	return n
}

// joinBands merges the band lists a and b of a join's inputs, sorted by
// key: each thread's later epoch, less the epochs the join's block
// entries bs imply; the bands of clean, a list known to hold no implied
// epoch (see cleanOf), are kept unwalked, and a band or chunk both
// inputs share is kept as it is, walked only to prune it when the join
// has block entries. It returns the list and the entries it walked and
// wrote.
func joinBands(a, b []band, bs []bgen, clean []band) ([]band, int) {
	j := bandJoin{out: make([]band, 0, len(a)+len(b)), cj: chunkJoin{bs: bs}, clean: clean}
	for len(a) > 0 && len(b) > 0 {
		switch ka, kb := a[0].k, b[0].k; {
		case ka < kb:
			j.add(a[0])
			a = a[1:]
		case kb < ka:
			j.add(b[0])
			b = b[1:]
		default:
			j.merge(a[0], b[0])
			a, b = a[1:], b[1:]
		}
	}
	for _, g := range a {
		j.add(g)
	}
	for _, g := range b {
		j.add(g)
	}
	return j.out, j.wrote()
}

// A bandJoin is the output of a join's bands as it is built: the bands
// so far, the chunk join of the band being built (its block entries,
// walked once across bands, and the entries written), the clean bands
// not yet passed, and the chunks written in new bands.
type bandJoin struct {
	out   []band
	cj    chunkJoin
	clean []band
	made  int // chunks written in new bands
}

// wrote returns the entries the join walked and wrote, its lists
// counted.
func (j *bandJoin) wrote() int { return j.cj.wrote + j.made + len(j.out) }

// add appends g, a band of one input, without the epochs the block
// entries imply: g itself when it is clean or none is.
func (j *bandJoin) add(g band) {
	cl, whole := j.cleanOf(g)
	if whole || len(j.cj.bs) == 0 {
		j.out = append(j.out, g)
		return
	}
	j.start(cl)
	for _, c := range g.c() {
		j.cj.add(c, false)
	}
	j.finish(g.k, []band{g})
}

// merge appends the join of x and y, bands of one key.
func (j *bandJoin) merge(x, y band) {
	if x.is(y) {
		j.add(x)
		return
	}
	cl, _ := j.cleanOf(x)
	j.start(cl)
	j.mergeChunks(x.c(), y.c())
	ins := [2]band{x, y}
	j.finish(x.k, ins[:])
}

// mergeChunks adds the merge of a and b, chunk lists of one band key
// sorted by key, to the band being built.
func (j *bandJoin) mergeChunks(a, b []chunk) {
	for len(a) > 0 && len(b) > 0 {
		switch ka, kb := a[0].key(), b[0].key(); {
		case ka < kb:
			j.cj.add(a[0], false)
			a = a[1:]
		case kb < ka:
			j.cj.add(b[0], false)
			b = b[1:]
		default:
			c, n, made := mergeChunk(a[0], b[0])
			j.cj.add(c, made)
			a, b, j.cj.wrote = a[1:], b[1:], j.cj.wrote+n
		}
	}
	for _, c := range a {
		j.cj.add(c, false)
	}
	for _, c := range b {
		j.cj.add(c, false)
	}
}

// cleanOf returns the chunks of the clean band of g's key, advancing
// past the clean bands of lower keys, and whether g is that band.
func (j *bandJoin) cleanOf(g band) ([]chunk, bool) {
	for len(j.clean) > 0 && j.clean[0].k < g.k {
		j.clean = j.clean[1:]
	}
	if len(j.clean) == 0 || j.clean[0].k != g.k {
		return nil, false
	}
	return j.clean[0].c(), j.clean[0].is(g)
}

// start begins a band, whose chunks of clean are kept unwalked.
func (j *bandJoin) start(clean []chunk) {
	j.cj.n, j.cj.clean = 0, clean
}

// finish appends the band of key k of the chunks built: an input band
// of ins when it holds those very chunks, else a new one; none when they
// are none.
func (j *bandJoin) finish(k int32, ins []band) {
	cs := j.cj.chunks()
	if len(cs) == 0 {
		return
	}
	for _, g := range ins {
		if sameChunks(cs, g.c()) {
			j.out = append(j.out, g)
			return
		}
	}
	j.out, j.made = append(j.out, bandOf(k, slices.Clone(cs))), j.made+len(cs)
}

// sameChunks reports whether a and b are the same chunks.
func sameChunks(a, b []chunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].is(b[i]) {
			return false
		}
	}
	return true
}
