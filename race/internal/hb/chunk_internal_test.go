package hb

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// epochs returns v's thread entries in order, its tail's among them.
func (v *vclock) epochs() []epoch {
	var out []epoch
	for _, c := range v.chunks() {
		out = append(out, c.e()...)
	}
	if len(v.tail) > 0 {
		out = mergeThreads(out, latestOf(slices.Clone(v.tail)))
	}
	return out
}

// chunks returns v's chunks in order, across its bands.
func (v *vclock) chunks() []chunk {
	var out []chunk
	for _, g := range v.bands {
		out = append(out, g.c()...)
	}
	return out
}

func TestChunkedSplitsByRun(t *testing.T) {
	t.Parallel()
	const run = 1 << chunkBits
	v := threadsClock([]epoch{at(1, 0, 0, 1), at(run-1, 0, 0, 1), at(run, 1, 0, 1), at(3*run+2, 3, 0, 1)})
	require.Len(t, v.chunks(), 3)
	assert.Equal(t, 4, v.ne)
	assert.Equal(t, uint64(1), v.threadC(run))
	assert.Zero(t, v.threadC(run+1))
}

// TestJoinSharesUnchangedChunks: a join copies only the chunks in which
// its inputs differ, and a covers check walks none that they share.
func TestJoinSharesUnchangedChunks(t *testing.T) {
	t.Parallel()
	big := wideClock(8<<chunkBits, 1)
	var n counters
	j := join(big, threadsClock([]epoch{at(3<<chunkBits+5, 3, 0, 2)}), &n)
	for i, c := range j.chunks() {
		if i == 3 {
			assert.False(t, big.chunks()[i].is(c), "the changed run is copied")
		} else {
			assert.True(t, big.chunks()[i].is(c), "an unchanged run is shared")
		}
	}
	assert.Less(t, n.joins, uint64(4<<chunkBits), "the join wrote one run, not the clock")
	n = counters{}
	require.True(t, j.covers(big, &n))
	assert.Less(t, n.joins, uint64(2<<chunkBits), "covers walked one run")
}

// TestJoinAgreesWithFlatMerge: joins of random vclocks, with block
// entries pruning thread entries, hold what a plain merge of all entries
// says, and each covers both inputs.
func TestJoinAgreesWithFlatMerge(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		span := testSpan(r)
		a, b := threadsClock(randomGenEpochs(r, 1+r.IntN(200), span)), threadsClock(randomGenEpochs(r, r.IntN(40), span))
		if r.IntN(2) == 0 {
			b = withBlock(b, int32(r.IntN(span/64)), uint32(1+r.IntN(2)), nil) // pruned, as every vclock is
		}
		if r.IntN(2) == 0 { // a's blocks may cover b's: its chunks are then kept unwalked
			a = withBlock(a, int32(r.IntN(span/64)), uint32(1+r.IntN(2)), nil)
		}
		ae, be := slices.Clone(a.epochs()), slices.Clone(b.epochs())
		j := join(a, b, nil)
		require.Equal(t, ae, a.epochs(), "a join prunes only chunks it made")
		require.Equal(t, be, b.epochs())
		require.True(t, j.covers(a, nil) && j.covers(b, nil))
		for _, e := range naiveMerge(a.epochs(), b.epochs()) {
			require.True(t, j.knows(e))
			implied := j.blockK(e.blk) > e.gen()
			require.Equal(t, !implied, j.threadC(e.tid) == e.c, "an entry is kept exactly when no block entry implies it")
		}
		require.Equal(t, len(j.epochs()), j.ne)
	}
}

// randomGenEpochs is randomEpochs over generations 0 to 2, so that a
// block entry prunes part of a chunk.
func randomGenEpochs(r *rand.Rand, n, span int) []epoch {
	es := randomEpochs(r, n, span)
	for i := range es {
		es[i].c |= uint64(r.IntN(3)) << 32
	}
	return es
}

// TestRunCursorAgreesWithThreadC: a cursor asked for rising ids reads
// what threadC reads, across chunks, gaps and ids past the last entry.
func TestRunCursorAgreesWithThreadC(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		span := testSpan(r)
		v := threadsClock(randomEpochs(r, 1+r.IntN(300), span))
		cur := runCursor{v: v}
		for tid := int32(r.IntN(64)); tid < int32(span)+100; tid += 1 + int32(r.IntN(5)) {
			require.Equal(t, v.threadC(tid), cur.threadC(tid), "thread %d", tid)
		}
	}
	var none runCursor
	assert.Zero(t, none.threadC(3), "a nil vclock knows nothing")
}

// TestWithEpochAgreesWithJoin: setting one epoch a vclock does not know
// gives the entries a join with a clock of that epoch gives, in a link
// that shares every band of its input and leaves the input as it was.
func TestWithEpochAgreesWithJoin(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		span := testSpan(r)
		v := threadsClock(randomEpochs(r, 1+r.IntN(200), span))
		if r.IntN(2) == 0 {
			v = withBlock(v, int32(r.IntN(span/64)), uint32(1+r.IntN(2)), nil)
		}
		tid := int32(r.IntN(span + 100))
		e := at(tid, tid/64, 1, uint32(1+r.IntN(9))) // generation 1: no block entry of v implies it
		if v.knows(e) {
			continue
		}
		before := slices.Clone(v.epochs())
		got := withEpoch(v, e, nil)
		want := join(v, threadsClock([]epoch{e}), nil)
		require.Equal(t, want.epochs(), got.epochs(), "epoch %v", e)
		require.Equal(t, want.b, got.b)
		requireWellFormed(t, got)
		require.Equal(t, before, v.epochs(), "the input is immutable")
		require.Equal(t, []epoch{e}, got.tail)
		require.Equal(t, len(v.bands), len(got.bands))
		for i, g := range got.bands {
			assert.True(t, v.bands[i].is(g), "band %d is shared", i)
		}
	}
	assert.Equal(t, []epoch{at(3, 0, 0, 1)}, withEpoch(nil, at(3, 0, 0, 1), nil).epochs())
}
