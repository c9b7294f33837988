package hb

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// blockThreads returns the started threads of one block of n threads.
func blockThreads(n int) []pthread {
	l := &plaunch{p: New(2, false, false, nil, nil, nil), tid0: 100, g: &gpu.Grid{BlockSize: n, Warps: (n + 31) / 32, WarpSize: 32, Threads: n}}
	blk := &pblock{id: 0, threads: make([]pthread, n)}
	for i := range blk.threads {
		l.start(&blk.threads[i], blk, int32(i))
	}
	return blk.threads
}

// weakRead returns a weak load of th at its current epoch.
func weakRead(th *pthread) *prec { return &prec{e: th.self(), op: gpu.OpLoad, order: gpu.Weak} }

// TestReadsToTheSetLeaveTheList: once a location's weak reads go to its
// read set, a read leaves the list alone, even the thread's own earlier
// read there (which a write still drops); a write that races with a read
// kept in the list is found all the same.
func TestReadsToTheSetLeaveTheList(t *testing.T) {
	t.Parallel()
	ths := blockThreads(8)
	loc := new(ploc)
	for i := range readSetAt + 2 {
		x := weakRead(&ths[i])
		require.Nil(t, ths[i].racer(loc, x, false))
		loc.record(&ths[i], x, false, nil)
	}
	require.NotNil(t, loc.reads, "the sixth reader made the read set")
	require.Len(t, loc.recs, readSetAt, "the list kept the first five readers")

	pairs := ths[0].n.pairs
	x := weakRead(&ths[0]) // thread 0 again: it follows its read in the list
	loc.record(&ths[0], x, false, nil)
	assert.Len(t, loc.recs, readSetAt, "a read to the set drops nothing from the list")
	assert.Equal(t, pairs, ths[0].n.pairs, "and compares nothing")

	w := &prec{e: ths[7].self(), op: gpu.OpStore, order: gpu.Weak, write: true}
	y := ths[7].racer(loc, w, false)
	require.NotNil(t, y, "a write after unordered reads races")
	assert.Equal(t, ths[0].tid, y.e.tid, "with the first reader the list kept")
}

// TestReadsPruneTheListWhenFull: a weak read going to a list with room
// drops its own thread's earlier read and keeps another thread's it
// knows; one that finds the list full drops every read its thread knows,
// making room rather than a read set.
func TestReadsPruneTheListWhenFull(t *testing.T) {
	t.Parallel()
	ths := blockThreads(8)
	loc := new(ploc)
	read := func(i int) {
		x := weakRead(&ths[i])
		require.Nil(t, ths[i].racer(loc, x, false))
		loc.record(&ths[i], x, false, nil)
	}
	read(1)
	ths[0].know = threadsClock([]epoch{ths[1].self()}) // thread 0 learns thread 1's read
	read(0)
	read(0)
	require.Len(t, loc.recs, 2, "the second read of thread 0 replaced its first, and thread 1's stays")
	read(2)
	read(3)
	read(4)
	require.Len(t, loc.recs, readSetAt)
	read(0)
	assert.Nil(t, loc.reads, "no read set: the full list made room")
	tids := []int32{}
	for _, y := range loc.recs {
		tids = append(tids, y.e.tid-ths[0].tid)
	}
	assert.Equal(t, []int32{2, 3, 4, 0}, tids, "thread 1's read, known to thread 0, was dropped")
}

// TestRepeatsAreTheSameEpochsWeakAccesses: a weak access repeats the
// last record of a location's list when that record is its thread's weak
// access at the same epoch that writes, or that the access does not, and
// a weak read repeats its thread's read in the read set at the same
// epoch; the engine's check then neither checks nor records it, and an
// unordered write of another thread still races with the record.
func TestRepeatsAreTheSameEpochsWeakAccesses(t *testing.T) {
	t.Parallel()
	ths := blockThreads(4)
	a, b := &ths[0], &ths[1]
	weakWrite := func(th *pthread) *prec {
		return &prec{e: th.self(), op: gpu.OpStore, order: gpu.Weak, write: true}
	}
	loc := new(ploc)
	assert.False(t, loc.repeats(weakRead(a)), "an empty list")
	loc.record(a, weakWrite(a), false, nil)
	assert.True(t, loc.repeats(weakRead(a)), "a read after the thread's write")
	assert.True(t, loc.repeats(weakWrite(a)), "a write after the thread's write")
	assert.False(t, loc.repeats(weakRead(b)), "another thread's read")
	atomic := &prec{e: a.self(), op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
	assert.False(t, loc.repeats(atomic), "a strong access")

	loc.record(b, weakRead(b), false, nil)
	assert.True(t, loc.repeats(weakRead(b)), "a read after the thread's read")
	assert.False(t, loc.repeats(weakWrite(b)), "a write after the thread's read")
	b.c++
	assert.False(t, loc.repeats(weakRead(b)), "a read at a later epoch")

	strong := new(ploc)
	strong.record(a, atomic, false, nil)
	assert.False(t, strong.repeats(weakRead(a)), "a read after the thread's atomic")

	readers, reads := blockThreads(8), new(ploc)
	for i := range readSetAt + 2 { // past the list's room, reads go to the set
		reads.record(&readers[i], weakRead(&readers[i]), false, nil)
	}
	require.NotNil(t, reads.reads)
	last := &readers[readSetAt+1]
	assert.True(t, reads.readRepeats(weakRead(last)), "a read at the epoch of the thread's read in the read set")
	assert.False(t, reads.readRepeats(weakRead(&readers[0])), "a read the list holds, not the set")
	assert.False(t, reads.readRepeats(weakWrite(last)), "a write")
	last.c++
	assert.False(t, reads.readRepeats(weakRead(last)), "a read at a later epoch")

	loc = new(ploc)
	loc.record(a, weakWrite(a), false, nil)
	a.l.p.check(a, nil, loc, weakRead(a), &gpu.Access{Mem: &gpu.Memory{Space: gpu.GlobalSpace}}, nil)
	assert.Equal(t, uint64(1), a.n.repeats, "the check counted a repeat")
	assert.Len(t, loc.recs, 1, "and recorded nothing")
	require.NotNil(t, ths[2].racer(loc, weakWrite(&ths[2]), false), "an unordered write races with the record")
}

// TestStrongRepeatsAreTheSameAccessAtOneEpoch: a strong access repeats
// its thread's member of the wide or block set when that member is the
// same access (operation, order, scope, write) at the same epoch; the
// check then skips it, and another thread's unordered weak write still
// races with the member.
func TestStrongRepeatsAreTheSameAccessAtOneEpoch(t *testing.T) {
	t.Parallel()
	ths := blockThreads(4)
	a, b := &ths[0], &ths[1]
	poll := func(th *pthread, s scope.Scope) *prec {
		return &prec{e: th.self(), op: gpu.OpLoad, order: gpu.Relaxed, scope: s}
	}
	loc := new(ploc)
	assert.False(t, loc.strongRepeats(poll(a, scope.Device), true), "no set yet")
	loc.record(a, poll(a, scope.Device), true, nil)
	require.NotNil(t, loc.wide)
	assert.True(t, loc.strongRepeats(poll(a, scope.Device), true), "the thread's poll again")
	assert.False(t, loc.strongRepeats(poll(b, scope.Device), true), "another thread's poll")
	add := &prec{e: a.self(), op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
	assert.False(t, loc.strongRepeats(add, true), "another operation")
	acq := poll(a, scope.Device)
	acq.order = gpu.Acquire
	assert.False(t, loc.strongRepeats(acq, true), "another order")
	assert.False(t, loc.repeats(poll(a, scope.Device)), "the list's weak repeats do not take it")
	a.c++
	assert.False(t, loc.strongRepeats(poll(a, scope.Device), true), "a later epoch")

	blk := new(ploc)
	blk.record(b, poll(b, scope.Block), false, nil)
	require.NotNil(t, blk.blk)
	assert.True(t, blk.strongRepeats(poll(b, scope.Block), false), "a block-scope poll of the block set's block")

	loc = new(ploc)
	loc.record(b, poll(b, scope.Device), true, nil)
	mem := &gpu.Access{Mem: &gpu.Memory{Space: gpu.GlobalSpace}}
	b.l.p.check(b, nil, loc, poll(b, scope.Device), mem, nil)
	assert.Equal(t, uint64(1), b.n.repeats, "the check counted a repeat")
	assert.Len(t, loc.wide.members, 1, "and recorded nothing")
	weak := &prec{e: ths[2].self(), op: gpu.OpStore, order: gpu.Weak, write: true}
	require.NotNil(t, ths[2].racer(loc, weak, false), "an unordered weak write races with the member")
}

// TestAReadsConflictIsAWrite: a read's check passes over the reads of a
// location's list or of a set and finds the unordered write behind them;
// a write's finds the first unordered read; and each record a walk looks
// at counts as one pair compared, as when each was compared by a call.
func TestAReadsConflictIsAWrite(t *testing.T) {
	t.Parallel()
	ths := blockThreads(8)
	reads := []prec{*weakRead(&ths[1]), *weakRead(&ths[2]), *weakRead(&ths[3])}
	write := prec{e: ths[4].self(), op: gpu.OpStore, order: gpu.Weak, write: true}
	withWrite := append(slices.Clone(reads), write, *weakRead(&ths[5]))
	th := &ths[0]

	n := th.n.pairs
	assert.Nil(t, th.racerIn(reads, weakRead(th)), "reads do not race")
	assert.Equal(t, n+3, th.n.pairs, "three reads compared")
	y := th.racerIn(withWrite, weakRead(th))
	require.NotNil(t, y)
	assert.Equal(t, ths[4].tid, y.e.tid, "the write behind the reads")
	assert.Equal(t, n+3+4, th.n.pairs, "compared up to the write")
	w := &prec{e: th.self(), op: gpu.OpStore, order: gpu.Weak, write: true}
	y = th.racerIn(withWrite, w)
	require.NotNil(t, y)
	assert.Equal(t, ths[1].tid, y.e.tid, "a write races with the first read")

	loc := &ploc{recs: withWrite}
	n = th.n.pairs
	y = th.racer(loc, weakRead(th), false)
	require.NotNil(t, y, "a location's list")
	assert.Equal(t, ths[4].tid, y.e.tid)
	assert.Equal(t, n+4, th.n.pairs, "compared up to the write")

	set := newThreadSet(setIndexAt, th.blockKeys())
	for i := range withWrite {
		require.True(t, set.put(&withWrite[i], false))
	}
	y = set.check(th, weakRead(th))
	require.NotNil(t, y, "a set's walk finds the write too")
	assert.Equal(t, ths[4].tid, y.e.tid)
}
