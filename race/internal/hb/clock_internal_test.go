package hb

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func at(tid, blk int32, gen uint32, step uint32) epoch {
	return epoch{tid: tid, blk: blk, c: uint64(gen)<<32 | uint64(step)}
}

func TestVclockKnows(t *testing.T) {
	t.Parallel()
	v := threadsClock([]epoch{at(5, 0, 0, 3), at(70, 2, 1, 4)})
	v.b = []bgen{{blk: 1, k: 2}}
	assert.True(t, v.knows(at(5, 0, 0, 3)), "an entry's own epoch")
	assert.False(t, v.knows(at(5, 0, 0, 4)), "past the entry")
	assert.True(t, v.knows(at(40, 1, 1, 99)), "before block 1's second barrier")
	assert.False(t, v.knows(at(40, 1, 2, 1)), "after it")
	assert.False(t, v.knows(at(6, 0, 0, 1)), "a thread never heard of")
	var none *vclock
	assert.False(t, none.knows(at(1, 0, 0, 1)))
}

// TestLookupsAgreeWithAScan checks blockK and threadC, whose short block
// lists are walked and long ones searched, whose whole chunks are
// indexed and partial ones searched, and whose chunk lists are indexed
// where they hold every run from their first, against a scan of the
// vclock's entries.
func TestLookupsAgreeWithAScan(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		var es []epoch
		modes := [8]int{} // per run: 0 whole, 1 sparse, 2 none
		for i := range modes {
			modes[i] = r.IntN(3)
		}
		for tid := range int32(8 << chunkBits) {
			if m := modes[tid>>chunkBits]; m == 0 || m == 1 && r.IntN(4) == 0 {
				es = append(es, at(tid, tid>>5, 0, uint32(1+r.IntN(9))))
			}
		}
		v := threadsClock(es)
		for blk := range int32(1 + r.IntN(2*shortBlocks)) {
			if r.IntN(2) == 0 {
				v.b = append(v.b, bgen{blk: 2 * blk, k: uint32(1 + r.IntN(5))})
			}
		}
		for tid := range int32(9 << chunkBits) {
			var want uint64
			for _, e := range es {
				if e.tid == tid {
					want = e.c
				}
			}
			require.Equal(t, want, v.threadC(tid), "thread %d", tid)
		}
		for blk := range int32(4*shortBlocks + 2) {
			var want uint32
			for _, g := range v.b {
				if g.blk == blk {
					want = g.k
				}
			}
			require.Equal(t, want, v.blockK(blk), "block %d of %v", blk, v.b)
		}
	}
}

func TestJoinFoldsThreadsIntoBlocks(t *testing.T) {
	t.Parallel()
	a := threadsClock([]epoch{at(1, 0, 0, 5), at(40, 1, 0, 2)})
	b := withBlock(nil, 0, 1, nil)
	j := join(a, b, nil)
	require.Equal(t, []epoch{at(40, 1, 0, 2)}, j.epochs(), "thread 1's entry is implied by block 0's barrier")
	require.Equal(t, []bgen{{0, 1}}, j.b)
	assert.True(t, j.covers(a, nil) && j.covers(b, nil))
	assert.Same(t, j, join(j, a, nil), "a join that adds nothing reuses the vclock")
	assert.Same(t, j, join(b, j, nil))
}

func TestJoinKeepsLaterEpochs(t *testing.T) {
	t.Parallel()
	a := threadsClock([]epoch{at(1, 0, 0, 5), at(3, 0, 0, 1)})
	b := threadsClock([]epoch{at(1, 0, 0, 2), at(2, 0, 0, 7)})
	j := join(a, b, nil)
	require.Equal(t, []epoch{at(1, 0, 0, 5), at(2, 0, 0, 7), at(3, 0, 0, 1)}, j.epochs())
	assert.False(t, a.covers(b, nil))
	assert.False(t, b.covers(a, nil))
}

func TestJoinView(t *testing.T) {
	t.Parallel()
	w := view{k: threadsClock([]epoch{at(1, 0, 0, 2)}), self: at(9, 0, 0, 4), known: true}
	v := joinView(nil, w, nil)
	assert.True(t, v.knows(at(1, 0, 0, 2)) && v.knows(at(9, 0, 0, 4)))
	assert.Nil(t, joinView(nil, view{}, nil), "the zero view knows nothing")
}

// wideClock returns a vclock of n threads of block 0, each at step c.
func wideClock(n int, c uint32) *vclock {
	var es []epoch
	for i := range n {
		es = append(es, at(int32(i), 0, 0, c))
	}
	return threadsClock(es)
}

func TestRemembersOnlyWhatItChecked(t *testing.T) {
	t.Parallel()
	big, small := wideClock(memoAt, 2), wideClock(memoAt, 1)
	small.lin = new(lineage)
	require.True(t, big.remembers(small, nil))
	c := big.covered.Load()
	require.NotNil(t, c, "a large covered vclock is remembered")
	assert.Equal(t, lineagePlace{small.lin, small.seq}, c.at[0])
	var walked counters
	assert.True(t, big.remembers(small, &walked), "the memo answers again")
	assert.Zero(t, walked.joins, "without a walk")
	earlier := wideClock(memoAt, 1)
	earlier.lin, earlier.seq = small.lin, small.seq
	small.seq++
	require.True(t, big.remembers(small, nil))
	assert.True(t, big.remembers(earlier, &walked), "an earlier member of the remembered lineage is covered")
	assert.Zero(t, walked.joins)
	later := wideClock(memoAt, 3)
	later.lin = new(lineage)
	assert.False(t, big.remembers(later, nil), "another vclock is walked, not taken for the remembered one")
	assert.Equal(t, lineagePlace{small.lin, small.seq}, big.covered.Load().at[0], "a failed check leaves the memo")
	orphan := wideClock(memoAt, 1)
	require.True(t, big.remembers(orphan, nil), "a vclock of no lineage is walked")
	assert.Equal(t, lineagePlace{small.lin, small.seq}, big.covered.Load().at[0], "and not remembered")
}

// naiveMerge is mergeThreads by map, for comparison.
func naiveMerge(a, b []epoch) []epoch {
	m := map[int32]epoch{}
	for _, e := range append(slices.Clone(a), b...) {
		if old, ok := m[e.tid]; !ok || e.c > old.c {
			m[e.tid] = e
		}
	}
	out := slices.Collect(maps.Values(m))
	sortEpochs(out)
	return out
}

// testSpan returns a span of thread ids for random vclocks: within one
// band, or across four.
func testSpan(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return 512
	}
	return 4 << (chunkBits + bandBits)
}

// randomEpochs returns n epochs of distinct threads below span, sorted.
func randomEpochs(r *rand.Rand, n, span int) []epoch {
	var out []epoch
	for _, tid := range r.Perm(span)[:n] {
		out = append(out, at(int32(tid), int32(tid/64), 0, uint32(1+r.IntN(5))))
	}
	sortEpochs(out)
	return out
}

func TestMergeThreadsAgreesWithAMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		long, short := 1+r.IntN(200), r.IntN(12)
		a, b := randomEpochs(r, long, 256), randomEpochs(r, short, 256)
		require.Equal(t, naiveMerge(a, b), mergeThreads(a, b), "long first")
		require.Equal(t, naiveMerge(a, b), mergeThreads(b, a), "short first")
	}
}
