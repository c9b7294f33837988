package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestLanesStayInTheBlock: a thread's lanes are its warp's, and a warp
// its block cuts short ends at the block's end, not in the next block.
func TestLanesStayInTheBlock(t *testing.T) {
	t.Parallel()
	l := &plaunch{p: New(2, false, false, nil, nil, nil), tid0: 100, blk0: 3, g: &gpu.Grid{BlockSize: 48, WarpSize: 32, Warps: 2, Threads: 96}}
	blk := &pblock{id: 0, threads: make([]pthread, 48)} // the first of two blocks
	for _, c := range []struct{ rank, lo, hi int32 }{{40, 132, 148}, {5, 100, 132}, {31, 100, 132}} {
		th := &blk.threads[c.rank]
		l.start(th, blk, c.rank)
		lo, hi := th.lanes()
		assert.Equal(t, [2]int32{c.lo, c.hi}, [2]int32{lo, hi}, "rank %d", c.rank)
	}
}

// TestIndexedLanesOfAVolatileRead: in an indexed wide set, a volatile
// read of a lane finds the unordered volatile write of another lane of
// its warp, and no read: two reads do not race; through a dense index's
// run of the warp's keys or a map's keys one by one.
func TestIndexedLanesOfAVolatileRead(t *testing.T) {
	t.Parallel()
	ths := blockThreads(64)
	w := newThreadSet(setIndexAt, ths[0].blockKeys())
	volatile := func(th *pthread, write bool) *prec {
		op := gpu.OpLoad
		if write {
			op = gpu.OpStore
		}
		return &prec{e: th.self(), op: op, order: gpu.Volatile, scope: scope.System, write: write}
	}
	for i := 1; i < 40; i++ { // reads of lanes 1-31 and of the second warp
		require.True(t, w.put(volatile(&ths[i], false), false))
	}
	require.NotNil(t, w.at, "the set is indexed")
	assert.Nil(t, w.checkLanes(&ths[0], volatile(&ths[0], false)), "a read races with no read")
	assert.NotNil(t, w.checkLanes(&ths[0], volatile(&ths[0], true)), "a write races with another lane's read")

	require.True(t, w.put(volatile(&ths[5], true), false))
	y := w.checkLanes(&ths[0], volatile(&ths[0], false))
	require.NotNil(t, y, "a read races with another lane's write")
	assert.Equal(t, ths[5].tid, y.e.tid)
	assert.True(t, y.write)
	assert.Nil(t, w.checkLanes(&ths[33], volatile(&ths[33], false)), "the second warp's lanes did not write")

	w.at.toMap() // an index whose keys spread too wide: looked up key by key
	require.NotNil(t, w.at.at)
	y = w.checkLanes(&ths[0], volatile(&ths[0], false))
	require.NotNil(t, y, "a read races with another lane's write, by key")
	assert.Equal(t, ths[5].tid, y.e.tid)
	assert.Nil(t, w.checkLanes(&ths[33], volatile(&ths[33], false)))
}

// TestFindChecksTheLastFound: an unindexed set's find asks the member it
// found last first, and answers right when that member has moved.
func TestFindChecksTheLastFound(t *testing.T) {
	t.Parallel()
	w := newThreadSet(setIndexAt, keyRun{})
	for tid := range int32(4) {
		w.put(&prec{e: at(tid, 0, 0, 1)}, false)
	}
	i, ok := w.find(setKey(&prec{e: at(2, 0, 0, 1)}))
	require.True(t, ok)
	require.Equal(t, 2, i)
	w.members[0], w.members[2] = w.members[2], w.members[0]
	i, ok = w.find(setKey(&prec{e: at(2, 0, 0, 1)}))
	assert.True(t, ok)
	assert.Equal(t, 0, i, "the member moved")
	i, ok = w.find(setKey(&prec{e: at(0, 0, 0, 1)}))
	assert.True(t, ok)
	assert.Equal(t, 2, i)
	_, ok = w.find(setKey(&prec{e: at(0, 0, 0, 1), write: true}))
	assert.False(t, ok, "a write of a thread that only read")
}

// TestFindFiltersByThread: an unindexed set's find answers by its
// members whatever the filter of their threads says: a thread whose bit
// is clear is absent, one whose bit another thread set (64 apart) is
// looked for and not found, a member pruned away is not found and
// clears its bit, and an emptied set finds nothing until put to again.
func TestFindFiltersByThread(t *testing.T) {
	t.Parallel()
	w := newThreadSet(setIndexAt, keyRun{})
	for _, tid := range []int32{1, 2, 3, 70} {
		w.put(&prec{e: at(tid, 0, 0, 1)}, false)
	}
	for _, tid := range []int32{1, 2, 3, 70} {
		_, ok := w.find(setKey(&prec{e: at(tid, 0, 0, 1)}))
		assert.True(t, ok, "member %d", tid)
	}
	for _, tid := range []int32{4, 65, 6, 134} { // 65: bit 1; 134: bit 6, set by 70
		_, ok := w.find(setKey(&prec{e: at(tid, 0, 0, 1)}))
		assert.False(t, ok, "thread %d", tid)
	}
	w.empty()
	_, ok := w.find(setKey(&prec{e: at(1, 0, 0, 1)}))
	assert.False(t, ok, "an emptied set")
	th := loneThreadAt(2) // its write, at a later epoch, prunes its own read
	w.put(&prec{e: th.self()}, false)
	th.c++
	require.Nil(t, w.check(th, &prec{e: th.self(), op: gpu.OpStore, write: true}))
	_, ok = w.find(setKey(&prec{e: at(2, 0, 0, 1)}))
	assert.False(t, ok, "a member pruned")
	assert.Empty(t, w.members)
	assert.Zero(t, w.tids, "and its bit")
	w.put(&prec{e: at(65, 0, 0, 1)}, false)
	i, ok := w.find(setKey(&prec{e: at(65, 0, 0, 1)}))
	assert.True(t, ok)
	assert.Equal(t, 0, i)
	_, ok = w.find(setKey(&prec{e: at(1, 0, 0, 1)}))
	assert.False(t, ok, "the bit of 65, not a member of 1")
}
