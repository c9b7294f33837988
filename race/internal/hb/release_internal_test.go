package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// loneThread returns the started thread of a launch of one one-thread
// block.
func loneThread() *pthread { return loneThreadAt(1000) }

// loneThreadAt is loneThread with the launch's first thread id tid0.
func loneThreadAt(tid0 int32) *pthread {
	l := &plaunch{p: New(2, false, false, nil, nil, nil), tid0: tid0, g: &gpu.Grid{BlockSize: 1, Warps: 1, WarpSize: 32, Threads: 1}}
	blk := &pblock{id: 0, threads: make([]pthread, 1)}
	th := &blk.threads[0]
	l.start(th, blk, 0)
	return th
}

// TestReleaseReplacesWhatItAcquired: a lock's next holder, having read
// the lock word's release state relaxed and fenced, releases it with no
// join walk while the state's part is the one it acquired; once another
// release changed that part, its release joins it.
func TestReleaseReplacesWhatItAcquired(t *testing.T) {
	t.Parallel()
	th := loneThread()
	loc := &ploc{rel: &relInfo{dev: wideClock(2*memoAt, 1)}}
	cas := &gpu.Access{Mem: &gpu.Memory{}, Op: gpu.OpCAS, Order: gpu.Relaxed, Scope: scope.Device}
	th.acquireFrom(loc, cas, gpu.Site{})
	th.fence(scope.Device)
	require.True(t, th.know.covers(loc.rel.dev, nil), "the fence acquired the lock's release")

	v, clock := th.released(scope.Device), th.fencedAt(scope.Device)
	joins := th.n.joins
	loc.release(th, scope.Device, v, clock)
	assert.Same(t, v, loc.rel.dev, "the release replaced the part it acquired")
	assert.Equal(t, joins, th.n.joins, "with no walk")

	other := threadsClock([]epoch{at(5000, 9, 0, 3)}) // another thread's release since
	loc.rel.dev = join(loc.rel.dev, other, nil)
	loc.release(th, scope.Device, v, clock)
	assert.True(t, loc.rel.dev.knows(at(5000, 9, 0, 3)), "a changed part is joined, not replaced")
	assert.True(t, loc.rel.dev.covers(v, nil))
}

// TestHeldReadFollowsOwnRelease: a lock taken by a CAS that itself
// releases (its thread fenced before) changes the word's release state
// after the read that found it; the held read follows the thread's own
// release, so that the fence after the CAS acquires the state as it now
// is, and the unlock replaces it with no walk.
func TestHeldReadFollowsOwnRelease(t *testing.T) {
	t.Parallel()
	th := loneThread()
	th.fence(scope.Device) // an earlier critical section's fence
	loc := &ploc{rel: &relInfo{dev: wideClock(2*memoAt, 1)}}
	cas := &gpu.Access{Mem: &gpu.Memory{}, Op: gpu.OpCAS, Order: gpu.Relaxed, Scope: scope.Device}
	th.acquireFrom(loc, cas, gpu.Site{})
	loc.release(th, scope.Device, th.released(scope.Device), th.fencedAt(scope.Device)) // the CAS's own release
	assert.Same(t, loc.rel.dev, th.cold.held.dev, "the held read follows the thread's own release")

	th.fence(scope.Device)
	v, clock := th.released(scope.Device), th.fencedAt(scope.Device)
	joins := th.n.joins
	loc.release(th, scope.Device, v, clock)
	assert.Same(t, v, loc.rel.dev, "the unlock replaced the part")
	assert.Equal(t, joins, th.n.joins, "with no walk")
}

// TestCoveredReleaseKeepsVersion: a poller whose read-modify-writes
// release what the flag's state already holds (its fence view, released
// by its last poll) leaves the state and its version as they were, so
// that another poller's next read of the unchanged flag is known and
// acquires nothing anew; a release that adds to the state changes it.
func TestCoveredReleaseKeepsVersion(t *testing.T) {
	t.Parallel()
	poller, other := loneThread(), loneThread()
	accessed(poller)
	poller.fence(scope.Device)
	loc := &ploc{}
	poll := &gpu.Access{Mem: &gpu.Memory{}, Op: gpu.OpAdd, Order: gpu.Relaxed, Scope: scope.Device}
	loc.written(poller, poll, view{})
	require.NotNil(t, loc.rel)
	ver, dev := loc.rel.ver, loc.rel.dev
	other.acquireFrom(loc, poll, gpu.Site{})
	require.Same(t, loc.rel, other.cold.last, "the other poller holds the flag's state")

	loc.written(poller, poll, view{}) // the same fence view again
	assert.Equal(t, ver, loc.rel.ver, "a covered release keeps the version")
	assert.Same(t, dev, loc.rel.dev)
	assert.Equal(t, other.cold.lastVer, loc.rel.ver, "the other poller's read is still known")

	accessed(poller)
	poller.fence(scope.Device) // a new view, which the state does not hold
	loc.written(poller, poll, view{})
	assert.NotEqual(t, ver, loc.rel.ver, "a release that adds changes the version")
	assert.True(t, loc.rel.dev.knows(poller.cold.fenced[scope.Device].self), "the new fence view")
}

// TestRepeatedPollReleasesOnce: a poller's read-modify-writes of zero,
// after its fence, release its fence's view once; while the poller does
// not fence again, its next ones of the same scope or narrower skip the
// release, which would change nothing, even after another thread's
// release changed the state: a state's parts only grow, so they still
// cover the poller's view. The poller's next fence, or a wider scope,
// makes the next one release again.
func TestRepeatedPollReleasesOnce(t *testing.T) {
	t.Parallel()
	poller, other := loneThread(), loneThreadAt(2000)
	accessed(poller)
	poller.fence(scope.Device)
	loc := &ploc{}
	add := &gpu.Access{Mem: &gpu.Memory{}, Op: gpu.OpAdd, Order: gpu.Relaxed, Scope: scope.Device}
	loc.written(poller, add, view{})
	require.NotNil(t, loc.rel)
	require.True(t, loc.rel.dev.covers(poller.released(scope.Device), nil))
	assert.True(t, poller.repeatsRelease(loc.rel, scope.Device), "the next poll repeats the release")
	assert.True(t, poller.repeatsRelease(loc.rel, scope.Block), "so does a narrower one")
	ver, dev := loc.rel.ver, loc.rel.dev
	loc.written(poller, add, view{})
	assert.Equal(t, ver, loc.rel.ver)
	assert.Same(t, dev, loc.rel.dev)

	accessed(other)
	other.fence(scope.Device)
	loc.written(other, add, view{})
	require.NotEqual(t, ver, loc.rel.ver, "another thread's release changed the state")
	assert.True(t, loc.rel.dev.covers(poller.released(scope.Device), nil), "which still covers the poller's view")
	assert.True(t, poller.repeatsRelease(loc.rel, scope.Device), "so the poller's next poll still repeats")

	accessed(poller)
	poller.fence(scope.Device)
	assert.False(t, poller.repeatsRelease(loc.rel, scope.Device), "a fence since: a new view to release")
	loc.written(poller, add, view{})
	assert.True(t, loc.rel.dev.covers(poller.released(scope.Device), nil), "the new view is released")
	assert.True(t, poller.repeatsRelease(loc.rel, scope.Device), "and noted")

	block := &gpu.Access{Mem: add.Mem, Op: gpu.OpAdd, Order: gpu.Relaxed, Scope: scope.Block}
	accessed(poller)
	poller.fence(scope.Device)
	loc.written(poller, block, view{})
	assert.False(t, poller.repeatsRelease(loc.rel, scope.Device), "a block-scope release reached no device part")
	assert.True(t, poller.repeatsRelease(loc.rel, scope.Block))
}

// TestReleaseStateHoldsFirstParts: a new release state's first part of
// a block and of a warp take the state's own room, so the state is one
// allocation; a second warp's part moves its list out.
func TestReleaseStateHoldsFirstParts(t *testing.T) {
	v := threadsClock([]epoch{at(1, 0, 0, 1)})
	allocs := testing.AllocsPerRun(100, func() {
		r := newRelInfo()
		r.blocks, _, _ = addPart(r.blocks, 0, v, nil, nil)
		r.warps, _, _ = addPart(r.warps, 0, v, nil, nil)
	})
	require.Equal(t, 1.0, allocs)
	r := newRelInfo()
	r.warps, _, _ = addPart(r.warps, 0, v, nil, nil)
	r.warps, _, _ = addPart(r.warps, 1, v, nil, nil)
	require.Len(t, r.warps, 2)
	require.Same(t, v, part(r.warps, 0))
	require.Same(t, v, part(r.warps, 1))
}
