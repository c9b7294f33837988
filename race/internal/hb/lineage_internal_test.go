package hb

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handoffs returns the releases of a lock passed from thread to thread
// k times, starting from what every thread knows, start: each holder
// acquires the last release and releases what it knows and its own
// epoch, as a fenced spin lock does.
func handoffs(start *vclock, k int, n *counters) []*vclock {
	rel := []*vclock{start}
	for i := range k {
		know := join(nil, rel[len(rel)-1], n)
		rel = append(rel, join(know, threadsClock([]epoch{at(int32(i%8), 0, 0, uint32(10+i))}), n))
	}
	return rel
}

func TestLineageCoversEarlierReleasesWithoutAWalk(t *testing.T) {
	t.Parallel()
	var n counters
	rel := handoffs(wideClock(4*memoAt, 1), 20, &n)
	last := rel[len(rel)-1]
	n = counters{}
	for _, r := range rel[1:] { // rel[0], made outside any join, has no lineage
		require.True(t, last.covers(r, &n))
		assert.Same(t, last, join(r, last, &n), "joining an earlier release gives the later one")
	}
	assert.Zero(t, n.joins, "a lineage answers covers checks with no walk")
	assert.False(t, rel[1].covers(last, nil), "an earlier release does not cover a later one")
}

func TestFlatClocksWalk(t *testing.T) {
	t.Parallel()
	n := counters{flat: true}
	rel := handoffs(wideClock(4*memoAt, 1), 20, &n)
	last := rel[len(rel)-1]
	require.Nil(t, last.lin, "the ablation keeps no lineages")
	n = counters{flat: true}
	for _, r := range rel[1 : len(rel)-1] {
		require.True(t, last.covers(r, &n))
	}
	assert.NotZero(t, n.joins, "without lineages each covers check walks")
}

func TestLineageForksRememberWhereTheyForked(t *testing.T) {
	t.Parallel()
	base := join(wideClock(memoAt, 1), threadsClock([]epoch{at(memoAt+1, 0, 0, 1)}), nil)
	require.NotNil(t, base.lin)
	a := join(base, threadsClock([]epoch{at(memoAt+2, 0, 0, 1)}), nil)
	b := join(base, threadsClock([]epoch{at(memoAt+3, 0, 0, 1)}), nil)
	assert.Same(t, base.lin, a.lin, "the first extension continues the lineage")
	assert.NotSame(t, base.lin, b.lin, "a second extension of one member starts its own")
	assert.True(t, b.descends(base), "the fork remembers the member it covers")
	assert.False(t, a.descends(b) || b.descends(a), "siblings are not ordered")
	assert.False(t, a.covers(b, nil))
	assert.False(t, b.covers(a, nil))
	laterA := join(a, threadsClock([]epoch{at(memoAt+4, 0, 0, 1)}), nil)
	laterB := join(b, threadsClock([]epoch{at(memoAt+4, 0, 0, 2)}), nil)
	require.True(t, laterA.lin == a.lin && laterB.lin == b.lin)
	m := join(a, b, nil)
	assert.True(t, m.descends(a) && m.descends(b) && m.descends(base), "a merge remembers both inputs and their fork")
	assert.False(t, m.descends(laterA) || m.descends(laterB), "a fork covers its places, not the members after them")
	assert.False(t, base.descends(b), "nor does a place cover its fork")
}

// TestForkPlacesAreBounded: a chain of forks remembers the last
// forkPlaces places, each lineage holding tags, not its ancestors.
func TestForkPlacesAreBounded(t *testing.T) {
	t.Parallel()
	root := join(wideClock(memoAt, 1), threadsClock([]epoch{at(memoAt, 0, 0, 1)}), nil)
	chain := []*vclock{root}
	for i := range 2 * forkPlaces {
		u := chain[len(chain)-1]
		join(u, threadsClock([]epoch{at(memoAt+1, 0, 0, uint32(i+1))}), nil) // takes u's lineage
		f := join(u, threadsClock([]epoch{at(memoAt+2, 0, 0, uint32(i+1))}), nil)
		require.NotSame(t, u.lin, f.lin, "step %d forks", i)
		chain = append(chain, f)
	}
	last := chain[len(chain)-1]
	for i, u := range chain[:len(chain)-1] {
		hops := len(chain) - 1 - i
		assert.Equal(t, hops <= forkPlaces, last.descends(u), "%d forks back", hops)
		assert.True(t, last.coversWalk(u))
	}
}

func TestViewClockBuildsOnTheThreadsLastOnly(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 100, c: 1, know: wideClock(memoAt, 1)}
	first := th.viewClock(th.now(), th.c)
	th.c++
	later := th.viewClock(th.now(), th.c)
	assert.Same(t, first.lin, later.lin, "a later view of the thread continues the lineage of its last")
	assert.True(t, later.descends(first))
	// A view at the same epoch as the last made, but from before an
	// acquire, must not be built on it: it knew less.
	before := th.now()
	th.know = join(th.know, threadsClock([]epoch{at(99, 3, 0, 7)}), nil)
	after := th.viewClock(th.now(), th.c)
	v := th.viewClock(before, before.self.c)
	assert.False(t, v.knows(at(99, 3, 0, 7)), "an earlier view's vclock holds nothing acquired after it")
	assert.True(t, after.knows(at(99, 3, 0, 7)))
}

// TestLineageUnderConcurrentExtension: vclocks extended from one another
// by many goroutines at once keep the invariant: a member covers, by a
// walk, every member of its lineage with a smaller seq.
func TestLineageUnderConcurrentExtension(t *testing.T) {
	t.Parallel()
	root := join(wideClock(memoAt, 1), threadsClock([]epoch{at(memoAt, 0, 0, 1)}), nil)
	const workers, steps = 4, 50
	out := make([][]*vclock, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			v := root
			for i := range steps {
				v = join(v, threadsClock([]epoch{at(int32(memoAt+1+w), 0, 0, uint32(i+1))}), nil)
				out[w] = append(out[w], v)
			}
		})
	}
	wg.Wait()
	var all []*vclock
	for _, vs := range out {
		all = append(all, vs...)
	}
	for _, u := range all {
		for _, v := range all {
			if v.descends(u) {
				require.True(t, v.coversWalk(u), "seq %d of a lineage does not cover seq %d", v.seq, u.seq)
			}
		}
	}
}

// coversWalk is covers without lineages: the walk alone.
func (v *vclock) coversWalk(w *vclock) bool {
	ok, _ := v.coversBlocks(w.b)
	ok2, _ := v.coversThreads(w.bands)
	return ok && ok2
}
