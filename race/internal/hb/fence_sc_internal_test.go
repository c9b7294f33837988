package hb

import (
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/scope"
)

// TestFencersShareThePublishedClock: a fence.sc that joined another
// thread's view makes the vclock of its own view once, publishes it in
// its instances' slots and keeps it as the release of its strong writes
// at every scope it covers; a later fencer joins it, its own epoch and
// what it acquires in one vclock, which is its own release. A fence.sc
// that joined nothing, of a thread that released nothing since its last
// fence, makes none.
func TestFencersShareThePublishedClock(t *testing.T) {
	t.Parallel()
	ths := blockThreads(4)
	ths[0].l.ss = newCohort()
	a, b, c := &ths[0], &ths[1], &ths[2]
	accessed(a)
	a.fenceSC(scope.Block)
	accessed(a)
	a.fenceSC(scope.Block)
	require.Nil(t, a.cold.fvc[scope.Block], "a lone fencer makes no vclock")
	assert.Same(t, a.know, a.cold.sc[scope.Block].v.k, "the slot holds the lone fencer's view in parts")

	at := b.self()
	accessed(b)
	b.fenceSC(scope.Block)
	mat := b.cold.fvc[scope.Block]
	require.NotNil(t, mat, "a fencer that joined a's view makes its own view's vclock")
	assert.True(t, mat.knows(at), "the release knows the fence's own epoch")
	assert.Same(t, mat, b.released(scope.Warp), "one vclock serves every scope the fence covers")
	assert.Same(t, mat, b.cold.sc[scope.Block].v.k, "the block's slot holds that vclock")

	cAt := c.self()
	accessed(c)
	c.fenceSC(scope.Block)
	assert.True(t, c.know.covers(mat, nil), "a later fencer learns b's view")
	assert.Same(t, c.know, c.cold.fvc[scope.Block], "what it knows, its own epoch included, is its release")
	assert.True(t, c.know.knows(cAt))
	assert.False(t, b.knows(cAt), "nothing flows back to the earlier fencer")
}

// TestFencesAfterABarrierMakeNoVclock: a warp's lanes made their accesses,
// passed a __syncwarp and then each fence in turn with no access between:
// each fence joins the one before it, whose fencer's last access the
// barrier already told every lane of, so every lane keeps the barrier's
// vclock and no fence makes one. A lane's access after its fence is in a
// later epoch, which no other lane learns of from the fences.
func TestFencesAfterABarrierMakeNoVclock(t *testing.T) {
	t.Parallel()
	ths := blockThreads(32)
	ths[0].l.ss = newCohort()
	for i := range ths {
		ths[i].know = outsider(int32(2000+i), 1)
		accessed(&ths[i])
	}
	ths[0].l.barrier(ths, 1<<32-1, nil)
	v := ths[0].know
	for i := range ths {
		ths[i].fenceSC(scope.Block)
		require.Same(t, v, ths[i].know, "lane %d's fence made a vclock", i)
		assert.Same(t, v, ths[i].released(scope.Block), "lane %d's release is the barrier's vclock", i)
	}
	accessed(&ths[3])
	after := ths[3].self()
	ths[4].fenceSC(scope.Block)
	assert.False(t, ths[4].knows(after), "lane 3's access after its fence")
	ths[3].fenceSC(scope.Block)
	ths[5].fenceSC(scope.Block)
	assert.True(t, ths[5].knows(after), "is published by its next fence")
}

// TestWideFenceSeesWhatWasPublishedMeanwhile: a device fence.sc reads
// its slots' views with no mutex held, to join them before it takes the
// mutexes to publish; a fence that published there in between is seen
// then, and a fence after it learns its epoch.
func TestWideFenceSeesWhatWasPublishedMeanwhile(t *testing.T) {
	t.Parallel()
	ths := blockThreads(2)
	ths[0].l.ss = newCohort()
	a, b := &ths[0], &ths[1]
	accessed(a)
	accessed(b)
	bAt := b.last()
	a.l.ss.sc.slots(a, scope.Device, &a.coldState().sc)
	slots := &a.cold.sc
	seen := *a.readViews(slots, scope.Device)
	holds := func() bool {
		lockSlots(slots, scope.Device)
		defer unlockSlots(slots, scope.Device)
		return seen.hold(slots, scope.Device)
	}
	require.True(t, holds(), "no fence since a read the slots")
	b.fenceSC(scope.Device)
	require.False(t, holds(), "b published after a read the slots")
	a.fenceSC(scope.Device)
	assert.True(t, a.know.knows(bAt), "a's fence follows b's and learns its epoch")
	assert.Same(t, a.know, slots[scope.Device].v.k, "and is published")
}

// TestWideFencesAreTotallyOrdered: threads fence at device scope
// concurrently, each after an access of its own. Fence-SC order is
// total, so of any two fences of different threads, the later one
// learns the earlier one's epoch: a fence that joined outside the
// mutexes and published over a fence it had not seen would break that.
func TestWideFencesAreTotallyOrdered(t *testing.T) {
	t.Parallel()
	const threads, rounds = 4, 100
	ths := blockThreads(threads)
	ths[0].l.ss = newCohort()
	type fenced struct {
		tid  int32
		at   epoch
		know *vclock
	}
	got := make([][]fenced, threads)
	var wg sync.WaitGroup
	for i := range ths {
		wg.Go(func() {
			th := &ths[i]
			for range rounds {
				th.c++
				accessed(th)
				at := th.last()
				th.fenceSC(scope.Device)
				got[i] = append(got[i], fenced{th.tid, at, th.know})
			}
		})
	}
	wg.Wait()
	all := slices.Concat(got...)
	for i, f := range all {
		for _, g := range all[i+1:] {
			if f.tid != g.tid && !g.know.knows(f.at) && !f.know.knows(g.at) {
				t.Fatalf("fences of threads %d at %d and %d at %d each missed the other", f.tid, f.at.c, g.tid, g.at.c)
			}
		}
	}
}
