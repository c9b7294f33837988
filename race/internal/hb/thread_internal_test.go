package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestAcquireOfUnchangedReleaseJoinsNothing: a thread polling a flag with
// acquire loads acquires its release state once per version; the memo is
// what makes a poll cost no join, so a change that does not bump the
// version (which the engine never makes) shows it is consulted.
func TestAcquireOfUnchangedReleaseJoinsNothing(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 1, c: 1}
	r := &relInfo{dev: threadsClock([]epoch{at(5, 0, 0, 2)}), ver: 1}
	th.acquire(r, scope.Device)
	require.True(t, th.know.knows(at(5, 0, 0, 2)))
	r.dev = threadsClock([]epoch{at(5, 0, 0, 2), at(9, 1, 0, 3)})
	th.acquire(r, scope.Device)
	assert.False(t, th.know.knows(at(9, 1, 0, 3)), "an unchanged version is not joined again")
	r.ver++
	th.acquire(r, scope.Device)
	assert.True(t, th.know.knows(at(9, 1, 0, 3)), "a new version is")
}

// TestFenceReleaseIsOneVclock: a fence of block scope sets the release of
// warp and block scope to one view, made into one vclock for both.
func TestFenceReleaseIsOneVclock(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 1, c: 1, know: threadsClock([]epoch{at(4, 0, 0, 1)})}
	accessed(th)
	th.fence(scope.Block)
	w := th.released(scope.Warp)
	require.NotNil(t, w)
	assert.True(t, w.knows(at(1, 0, 0, 1)) && w.knows(at(4, 0, 0, 1)))
	assert.Same(t, w, th.released(scope.Block))
	assert.Nil(t, th.released(scope.Device), "no fence of device scope")
}

// TestSpinOnOneReleaseStateJoinsNothing: a thread spinning with relaxed
// strong reads on one location whose release sequence grows holds the
// latest state it found, with no join per read, and a fence acquires
// all of it; a read of another location folds the held state into what
// is pending first, so nothing found earlier is lost.
func TestSpinOnOneReleaseStateJoinsNothing(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 1, c: 1}
	th.coldState() // as acquireFrom takes it before hold
	r := &relInfo{}
	for v := range int32(50) {
		r.dev = join(r.dev, threadsClock([]epoch{at(10+v, 0, 0, 1)}), nil)
		r.ver++
		th.hold(heldRelease{r: r, m: scope.Device, dev: r.dev})
		require.Zero(t, th.coldState().pend.n, "read %d left a part pending", v)
	}
	require.True(t, th.heldKnows(at(59, 0, 0, 1)), "the held state is the latest")
	other := &relInfo{dev: threadsClock([]epoch{at(99, 1, 0, 1)}), ver: 1}
	th.hold(heldRelease{r: other, m: scope.Device, dev: other.dev})
	require.True(t, th.coldState().pend.knows(at(10, 0, 0, 1)), "another state folds the held one in")
	th.fence(scope.Device)
	for _, e := range []epoch{at(10, 0, 0, 1), at(59, 0, 0, 1), at(99, 1, 0, 1)} {
		assert.True(t, th.know.knows(e), "the fence acquired %v", e)
	}
	assert.Nil(t, th.cold.held.r, "nothing is held after the fence")
}

// TestSetKnownByBlocks: a large set's members are known to a thread whose
// vclock holds every member's block past the members' generations (as
// after a grid sync), so a read checks the set's blocks, not its
// members; a member past what the thread knows of its block makes the
// check walk, and find it.
func TestSetKnownByBlocks(t *testing.T) {
	t.Parallel()
	w := newThreadSet(setIndexAt, keyRun{})
	for tid := range int32(40) {
		w.put(&prec{e: at(tid, tid/20, 0, 1), write: true, order: 1}, false)
	}
	th := &pthread{tid: 100, c: 1, know: &vclock{b: []bgen{{0, 1}, {1, 1}}}}
	require.True(t, w.knownBy(th))
	read := &prec{e: at(100, 5, 0, 1)}
	assert.Nil(t, w.check(th, read))
	w.put(&prec{e: at(7, 0, 1, 1), write: true, order: 1}, false) // thread 7, one block-wide barrier later
	assert.False(t, w.knownBy(th), "block 0's newer member is not known")
	assert.NotNil(t, w.check(th, read), "the walk finds it")
}

// TestColdStateIsTakenEmpty: a started thread has no cold state; its
// first fence takes its block's slot for its rank and empties what an
// earlier block's thread left there.
func TestColdStateIsTakenEmpty(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	l := &plaunch{p: p, g: &gpu.Grid{BlockSize: 4, Warps: 1, WarpSize: 32}}
	blk := &pblock{id: 0, threads: make([]pthread, 4)}
	colds := make([]pcold, 4)
	colds[2].lastVer = 7 // left by the slot's last thread
	blk.colds.Store(&colds)
	th := &blk.threads[2]
	l.start(th, blk, 2)
	require.Nil(t, th.cold, "a block's start writes no cold state")
	assert.Equal(t, int32(2), th.tid)
	th.fence(scope.Block)
	require.Same(t, &colds[2], th.cold, "the thread's rank's slot")
	assert.Zero(t, th.cold.lastVer, "emptied when taken")
	assert.True(t, th.cold.fenced[scope.Block].known)
}

// TestColdSlotsAreMadeOnFirstNeed: a block whose threads need no cold
// state has none; the first that needs one makes the block's, and the
// others take theirs from the same.
func TestColdSlotsAreMadeOnFirstNeed(t *testing.T) {
	t.Parallel()
	l := &plaunch{p: New(2, false, false, nil, nil, nil), g: &gpu.Grid{BlockSize: 3, Warps: 1, WarpSize: 32}}
	blk := &pblock{id: 0, threads: make([]pthread, 3)}
	for r := range blk.threads {
		l.start(&blk.threads[r], blk, int32(r))
	}
	require.Nil(t, blk.colds.Load(), "nothing made at the start")
	blk.threads[1].fence(scope.Warp)
	blk.threads[0].fence(scope.Warp)
	cs := *blk.colds.Load()
	assert.Same(t, &cs[0], blk.threads[0].cold)
	assert.Same(t, &cs[1], blk.threads[1].cold)
	assert.Nil(t, blk.threads[2].cold)
	assert.Nil(t, blk.states().threads[2].cold)
}

// accessed marks th as having made an access at its current epoch, as
// recording one does (see pthread.record).
func accessed(th *pthread) { th.busy = th.c }

// TestLastIsTheLastAccess: a thread's last epoch is 0 (known to every
// vclock) before its first access, the epoch of its last access after,
// and stays there while its clock moves on with no access.
func TestLastIsTheLastAccess(t *testing.T) {
	t.Parallel()
	th := &blockThreads(1)[0]
	assert.Zero(t, th.last().c)
	assert.True(t, (*vclock)(nil).knows(th.last()), "no vclock needs an entry for a thread that made no access")
	var x prec
	th.record(&x, &gpu.Access{Op: gpu.OpStore, Order: gpu.Weak}, gpu.Site{}, nil)
	e := th.self()
	assert.Equal(t, e, th.last())
	th.fence(scope.Block)
	assert.Equal(t, e.c+1, th.self().c, "the fence starts a new epoch")
	assert.Equal(t, e, th.last(), "in which the thread has made no access yet")
}
