package hb

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireWellFormed checks v's invariants: ne counts its bands' epochs,
// which no block entry implies, and its tail holds at most tailCap
// entries of distinct threads, each later than its thread's band entry
// and implied by no block entry.
func requireWellFormed(t *testing.T, v *vclock) {
	t.Helper()
	require.Equal(t, bandEpochs(v.bands), v.ne)
	for _, c := range v.chunks() {
		for _, e := range c.e() {
			require.GreaterOrEqual(t, e.gen(), v.blockK(e.blk), "band entry %v is implied by a block entry", e)
		}
	}
	require.LessOrEqual(t, len(v.tail), tailCap)
	seen := map[int32]bool{}
	for _, e := range v.tail {
		require.False(t, seen[e.tid], "thread %d twice in the tail", e.tid)
		seen[e.tid] = true
		require.Greater(t, e.c, v.bandC(e.tid), "tail entry %v", e)
		require.GreaterOrEqual(t, e.gen(), v.blockK(e.blk), "tail entry %v is implied by a block entry", e)
	}
}

// chainOf returns v extended n times by an epoch it does not know, as
// the links of a fence.sc chain extend it, with threads below span.
func chainOf(r *rand.Rand, v *vclock, n, span int) *vclock {
	for range n {
		tid := int32(r.IntN(span))
		e := at(tid, tid/64, 2, uint32(1+r.IntN(9))) // generation 2: past randomClocks' block entries
		if !v.knows(e) {
			v = withEpoch(v, e, nil)
		}
	}
	return v
}

// TestLinkSharesBandsUntilItFolds: the links of a chain over many bands
// share every band of the clock they extend and allocate once; the link
// that would overflow the tail folds it, copying only the band its
// entries fall in; and a link covers what it extends with no walk, by
// its lineage.
func TestLinkSharesBandsUntilItFolds(t *testing.T) { // not parallel: it counts allocations
	big := wideClock(4*bandSpan, 1)
	require.Len(t, big.bands, 4)
	v := big
	var n counters
	for i := range tailCap {
		tid := int32(2*bandSpan + i)
		v = withEpoch(v, at(tid, tid/64, 0, 2), &n)
		require.Len(t, v.tail, i+1)
		assert.Equal(t, roomFor(i+1), cap(v.tail), "link %d's room is the smallest that holds its tail", i)
		for j, g := range v.bands {
			require.True(t, big.bands[j].is(g), "link %d shares band %d", i, j)
		}
	}
	assert.Equal(t, uint64(tailCap*(tailCap+1)/2), n.joins, "each link wrote its tail")
	n = counters{}
	require.True(t, v.covers(big, &n))
	assert.Zero(t, n.joins, "a link covers what it extends by its lineage")
	assert.False(t, big.covers(v, nil))
	chain, step := withEpoch(big, at(5, 0, 0, 2), nil), uint32(2)
	allocs := testing.AllocsPerRun(100, func() { // one thread's epochs, as its fences' in a chain
		step++
		chain = withEpoch(chain, at(5, 0, 0, step), nil)
	})
	assert.Equal(t, 1.0, allocs, "a link that continues its chain is one allocation")

	require.Len(t, v.tail, tailCap)
	tid := int32(2*bandSpan + tailCap)
	folded := withEpoch(v, at(tid, tid/64, 0, 2), nil)
	assert.Empty(t, folded.tail, "a full tail folds")
	for j, g := range folded.bands {
		assert.Equal(t, j != 2, big.bands[j].is(g), "band %d", j)
	}
	for j := range tailCap + 1 {
		assert.Equal(t, uint64(2), folded.threadC(int32(2*bandSpan+j)))
	}
	requireWellFormed(t, folded)
}

// roomFor returns the room newLink gives a tail of n entries.
func roomFor(n int) int {
	r := 2
	for r < n {
		r *= 2
	}
	return r
}

// TestLinksAgreeWithFlatClocks: chains of links, joins of links with
// each other and with block entries, and joinAll over them hold the
// entries a flat map of thread and block clocks holds, and answer knows,
// threadC, a cursor's threadC and covers as it does.
func TestLinksAgreeWithFlatClocks(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	for range 400 {
		span := testSpan(r)
		var vs []*vclock
		var fs []flatClock
		for range 2 + r.IntN(4) {
			v := threadsClock(randomGenEpochs(r, 1+r.IntN(100), span))
			if len(vs) > 0 && r.IntN(2) == 0 {
				v = join(vs[r.IntN(len(vs))], v, nil)
			}
			v = chainOf(r, v, r.IntN(3*tailCap), span)
			if r.IntN(3) == 0 {
				v = withBlock(v, int32(r.IntN(span/64)), uint32(1+r.IntN(3)), nil)
			}
			requireWellFormed(t, v)
			vs, fs = append(vs, v), append(fs, flatOf(v))
		}
		for i, v := range vs {
			for range 20 {
				tid := int32(r.IntN(span))
				e := at(tid, tid/64, uint32(r.IntN(4)), uint32(1+r.IntN(9)))
				require.Equal(t, fs[i].knows(e), v.knows(e), "knows %v", e)
			}
			cur := runCursor{v: v}
			for tid := range int32(span) {
				require.Equal(t, v.threadC(tid), cur.threadC(tid), "thread %d", tid)
			}
			for j, w := range vs {
				require.Equal(t, fs[i].covers(fs[j]), v.covers(w, nil), "clock %d covers %d", i, j)
			}
		}
		got := joinAll(vs, nil, nil)
		requireWellFormed(t, got)
		want := flatClock{th: map[int32]uint64{}, b: map[int32]uint32{}}
		for _, f := range fs {
			want.join(f)
		}
		require.True(t, want.covers(flatOf(got)) && flatOf(got).covers(want), "joinAll holds the join")
	}
}

// A flatClock is a vclock as two maps: each thread's clock, each block's
// barriers.
type flatClock struct {
	th map[int32]uint64
	b  map[int32]uint32
}

// flatOf returns v's entries, its tail's among them.
func flatOf(v *vclock) flatClock {
	f := flatClock{th: map[int32]uint64{}, b: map[int32]uint32{}}
	for _, g := range v.b {
		f.b[g.blk] = g.k
	}
	for _, c := range v.chunks() {
		for _, e := range c.e() {
			f.th[e.tid] = max(f.th[e.tid], e.c)
		}
	}
	for _, e := range v.tail {
		f.th[e.tid] = max(f.th[e.tid], e.c)
	}
	return f
}

func (f flatClock) knows(e epoch) bool { return e.gen() < f.b[e.blk] || f.th[e.tid] >= e.c }

func (f flatClock) join(g flatClock) {
	for t, c := range g.th {
		f.th[t] = max(f.th[t], c)
	}
	for blk, k := range g.b {
		f.b[blk] = max(f.b[blk], k)
	}
}

// covers reports whether f knows every thread entry of g not implied by
// g's own block entries, and every block entry of g.
func (f flatClock) covers(g flatClock) bool {
	for blk, k := range g.b {
		if f.b[blk] < k {
			return false
		}
	}
	for tid, c := range g.th {
		if !f.knows(epoch{tid: tid, blk: tid / 64, c: c}) {
			return false
		}
	}
	return true
}
