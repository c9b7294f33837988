package hb

// A setIndex maps a set's member keys (see setKey) to their indexes in
// members. A set's members are mostly threads of one block or a few
// neighbouring ones, whose keys lie in a short run, so the index is a
// dense table over the run of keys from lo while that run is at most
// denseSpan of the keys it holds, one load to find a key; keys spread
// wider go to a map, which goes back to a table once its keys fill
// their run densely enough (the first keys of a block's threads are
// sparse, the later ones fill in). An index emptied for the next block's
// threads (see clear) may span as much as the keys it held before.
type setIndex struct {
	lo, hi int32   // with a map, the run its keys span: [lo, hi)
	dense  []int32 // member index + 1 by key - lo; 0 for none
	n      int     // keys in dense
	at     map[int32]int32
	last   int    // the keys it held when last emptied
	run    keyRun // the keys of the block of the set's maker (see widen)
}

// denseSpan returns the longest run of keys a dense table may cover when
// it holds n keys: a few times n, so the table costs no more than a map
// of the same keys.
func denseSpan(n int) int { return 4*n + 64 }

// find returns the member index of key k.
func (x *setIndex) find(k int32) (int32, bool) {
	if x.at != nil {
		i, ok := x.at[k]
		return i, ok
	}
	if j := uint(k - x.lo); j < uint(len(x.dense)) && x.dense[j] != 0 {
		return x.dense[j] - 1, true
	}
	return 0, false
}

// span returns the dense table's entries for the keys lo to hi-1 that it
// covers, and the key of the first; ok is false for a map, which the
// caller then asks key by key.
func (x *setIndex) span(lo, hi int32) (tab []int32, first int32, ok bool) {
	if x.at != nil {
		return nil, 0, false
	}
	a, b := max(lo, x.lo), min(hi, x.lo+int32(len(x.dense)))
	if a >= b {
		return nil, a, true
	}
	return x.dense[a-x.lo : b-x.lo], a, true
}

// set maps key k to member index i.
func (x *setIndex) set(k, i int32) {
	if x.at != nil {
		x.at[k] = i
		x.lo, x.hi = min(x.lo, k), max(x.hi, k+1)
		if int(x.hi-x.lo) <= denseSpan(max(len(x.at), x.last)) {
			x.toDense()
		}
		return
	}
	if x.n == 0 && len(x.dense) > 0 {
		x.rebase(k)
	}
	if j := uint(k - x.lo); j < uint(len(x.dense)) {
		if x.dense[j] == 0 {
			x.n++
		}
		x.dense[j] = i + 1
		return
	}
	x.widen(k)
	x.set(k, i)
}

// clear drops every key, noting how many there were. A dense table
// keeps its room and its run; a map is dropped, so that the keys set
// next start a dense table.
func (x *setIndex) clear() {
	if x.at != nil {
		*x = setIndex{last: len(x.at), run: x.run}
		return
	}
	clear(x.dense)
	x.n, x.last = 0, x.n
}

// widen makes room for key k: a dense table grows to cover it, doubling
// at least, while the span stays within denseSpan of its keys, or of
// those it held before it was emptied; past that, a table whose keys and
// k are all of the run of the set's maker's block covers that run (the
// first keys of a block's threads filling a shared bin are sparse, and
// the rest fill the run in); else the keys move to a map.
func (x *setIndex) widen(k int32) {
	lo, hi := min(x.lo, k), max(x.lo+int32(len(x.dense)), k+1)
	if len(x.dense) == 0 {
		lo, hi = k, k+1
	}
	if int(hi-lo) > denseSpan(max(x.n+1, x.last)) {
		if x.run.holds(k) && x.keysIn(x.run) {
			x.moveTo(x.run)
			return
		}
		x.toMap()
		return
	}
	size := max(int(hi-lo), 2*len(x.dense), 8)
	if k < x.lo {
		lo = hi - int32(size)
	}
	out := make([]int32, size)
	if len(x.dense) > 0 {
		copy(out[x.lo-lo:], x.dense)
	}
	x.lo, x.dense = lo, out
}

// keysIn reports whether every key of the dense table is in run r.
func (x *setIndex) keysIn(r keyRun) bool {
	for j, i := range x.dense {
		if i != 0 && !r.holds(x.lo+int32(j)) {
			return false
		}
	}
	return true
}

// moveTo makes the dense table cover run r, which holds its keys.
func (x *setIndex) moveTo(r keyRun) {
	out := make([]int32, r.n)
	for j, i := range x.dense {
		if i != 0 {
			out[x.lo+int32(j)-r.lo] = i
		}
	}
	x.lo, x.dense = r.lo, out
}

// rebase moves an empty dense table to a run centred on key k, the first
// it is to hold (the first of another block's threads, for a set emptied
// for it, see threadSet.empty): a table twice as long as a block's
// run of keys covers that run whichever of its keys comes first, so
// once a table has grown to that (one doubling of a table that covered a
// block), it serves block after block with no allocation.
func (x *setIndex) rebase(k int32) {
	if x.run.holds(k) && len(x.dense) >= int(x.run.n) {
		x.lo = x.run.lo // the table covers the block's run, whichever key comes first
		return
	}
	x.lo = k - int32(len(x.dense)/2)
}

// toMap moves the dense table's keys to a map.
func (x *setIndex) toMap() {
	x.at = make(map[int32]int32, 2*x.n+2)
	lo, hi := x.lo+int32(len(x.dense)), x.lo
	for j, i := range x.dense {
		if i != 0 {
			k := x.lo + int32(j)
			x.at[k] = i - 1
			lo, hi = min(lo, k), k+1
		}
	}
	x.lo, x.hi, x.dense, x.n = lo, hi, nil, 0
}

// toDense moves the map's keys to a dense table over their run.
func (x *setIndex) toDense() {
	x.dense, x.n = make([]int32, x.hi-x.lo), len(x.at)
	for k, i := range x.at {
		x.dense[k-x.lo] = i + 1
	}
	x.at = nil
}

// A blockGens maps each block of a set's members to one more than the
// highest generation of its members' epochs (see threadSet.knownBy):
// few blocks reach most sets, so it is a list while short and a map past
// blockGensFew blocks.
type blockGens struct {
	few []bgen
	at  map[int32]uint32
}

// blockGensFew is how many blocks a blockGens lists before it maps them.
const blockGensFew = 16

// raise notes member epoch e.
func (h *blockGens) raise(e epoch) {
	g := e.gen() + 1
	if h.at != nil {
		if g > h.at[e.blk] {
			h.at[e.blk] = g
		}
		return
	}
	for i := range h.few {
		if h.few[i].blk == e.blk {
			h.few[i].k = max(h.few[i].k, g)
			return
		}
	}
	if len(h.few) < blockGensFew {
		h.few = append(h.few, bgen{e.blk, g})
		return
	}
	h.at = make(map[int32]uint32, 2*blockGensFew)
	for _, b := range h.few {
		h.at[b.blk] = b.k
	}
	h.few = nil
	h.at[e.blk] = g
}

// knownBy reports whether v knows, of each block noted, every event
// before the generation noted.
func (h *blockGens) knownBy(v *vclock) bool {
	for _, b := range h.few {
		if v.blockK(b.blk) < b.k {
			return false
		}
	}
	for blk, g := range h.at {
		if v.blockK(blk) < g {
			return false
		}
	}
	return true
}
