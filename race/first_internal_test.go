package race

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestChunkOf: records 1, 2, ... fill chunk 0 (4 records), then chunk 1
// (8), and so on, each from offset 0, with no gap and no overlap.
func TestChunkOf(t *testing.T) {
	k, off := 0, uint32(0)
	for j := uint32(0); j < 4*(1<<10-1); j++ {
		gk, goff := chunkOf(j)
		require.Equal(t, k, gk, "record %d", j+1)
		require.Equal(t, off, goff, "record %d", j+1)
		if off++; off == 4<<k {
			k, off = k+1, 0
		}
	}
}

// publish appends a record with stamp to fl, as addFirst does.
func publish(t *testing.T, fl *firstList, st stamp) *first {
	n := fl.n.Load()
	f, _ := fl.room(n)
	require.NotNil(t, f, "room for record %d", n)
	f.stamp = st
	fl.n.Store(n + 1)
	return f
}

// TestFirstListFind: find returns the record with a stamp, among runs of
// records that share a synchronization state (gen, the low 32 bits) and
// differ in kind, across chunks; an unknown stamp finds nothing; and a
// gen that wrapped, out of order, is still found by the fallback scan.
func TestFirstListFind(t *testing.T) {
	fl := &firstList{chunks: new(firstChunkSet)}
	var want []*first
	for gen := range uint64(300) {
		for class := range gen%3 + 1 {
			want = append(want, publish(t, fl, newStamp(4, class, uint32(gen))))
		}
	}
	for _, f := range want {
		require.Same(t, f, fl.find(f.stamp), "stamp %#x", f.stamp)
	}
	require.Nil(t, fl.find(newStamp(4, 7, 10)), "a kind never recorded")
	require.Nil(t, fl.find(newStamp(5, 0, 10)), "another thread's stamp")
	wrapped := publish(t, fl, newStamp(4, 6, 3))
	require.Same(t, wrapped, fl.find(wrapped.stamp))
}

// TestFirstListFull: a list that has used every chunk has no room, and
// keepFirst then sends the access to its entry.
func TestFirstListFull(t *testing.T) {
	fl := &firstList{chunks: new(firstChunkSet)}
	fl.n.Store(1 + 4*(1<<firstChunks-1))
	f, b := fl.room(fl.n.Load())
	require.Nil(t, f)
	require.Zero(t, b)
}

// TestSettleWithoutStamp: a thread with no stamp (too far into a big
// grid) never makes a first record; its access needs the entry, and a
// slot with a stamp still settles the owner's repeat.
func TestSettleWithoutStamp(t *testing.T) {
	s := &shadow{mem: &gpu.Memory{ID: 3}, pages: make([]pageRef, 1), n: 4, firsts: true, fpool: new(sync.Pool),
		bytes: new(atomic.Int64), dens: new(densities)}
	th, load := &thread{}, &gpu.Access{Op: gpu.OpLoad}
	done, hasEntry := s.settleFirst(th, load, 0, 0)
	require.False(t, done)
	require.False(t, hasEntry)
	require.Zero(t, s.slot(0).Load(), "no first record without a stamp")

	s.slot(1).Store(9 << 42)
	done, _ = s.settleFirst(th, load, 1, 9<<42)
	require.True(t, done, "a repeat of the first access")
	require.EqualValues(t, 1, th.n.repeats)

	s.slot(2).Store(expanded)
	done, hasEntry = s.settleFirst(th, load, 2, 9<<42)
	require.False(t, done)
	require.True(t, hasEntry)
	require.EqualValues(t, 4*8, s.bytes.Load(), "the slots of a 4-granule memory")
	require.EqualValues(t, 4*8, s.release())
	require.Nil(t, s.pages[0].f.Load())
	require.Contains(t, s.dens.m, uint64(3), "one of two touched granules expanded: at least half, dense")
}

// TestSupersedeNeedsNoLocks: a thread's store replaces its own first
// record only when neither holds a lock, and the record it leaves holds
// the lockset that decision saw: with a lock held, the store takes the
// entry and the program-order check intersects the locksets, as with
// full entries.
func TestSupersedeNeedsNoLocks(t *testing.T) {
	_, th, s := firstFixture(2)
	mem := s.mem
	load, store := &gpu.Access{Mem: mem, Op: gpu.OpLoad}, &gpu.Access{Mem: mem, Op: gpu.OpStore}

	for i, held := range []*lockSet{nil, {ids: []lockID{{key: lockKey{mem: mem, gran: 7}}}}} {
		g := uint64(i)
		th.w.table.set.Store(nil)
		th.w.table.ver.Add(1)
		done, _ := s.settleFirst(th, load, g, th.stampNow(load))
		require.True(t, done, "the load is the first touch")
		v := s.slot(g).Load()
		th.w.table.set.Store(held) // a lock taken between the load and the store
		th.w.table.ver.Add(1)
		st := th.stampNow(store)
		done, _ = s.settleFirst(th, store, g, st)
		if held.empty() {
			require.True(t, done, "no lock: the store supersedes")
			require.Equal(t, st, s.slot(g).Load())
			require.True(t, th.firsts.find(st).c.locks.empty())
		} else {
			require.False(t, done, "a lock held: the store takes the entry")
			require.Equal(t, v, s.slot(g).Load())
		}
	}
}

// TestDensities: a memory most of whose touched granules were expanded
// gets full entries for densityTerm-1 launches, then first records again
// to be measured anew; a memory whose granules were mostly touched once,
// or that nobody touched, keeps first records; and the map of memories
// remembered is bounded.
func TestDensities(t *testing.T) {
	var ds densities
	m := &gpu.Memory{ID: 1}
	require.True(t, ds.firsts(m), "unknown")
	ds.learn(m, 0, 0)
	require.True(t, ds.firsts(m), "untouched teaches nothing")
	ds.learn(m, 3, 5)
	require.True(t, ds.firsts(m), "mostly touched once")
	require.Empty(t, ds.m, "only dense memories are remembered")
	ds.learn(m, 5, 5)
	for i := 1; i < densityTerm; i++ {
		require.False(t, ds.firsts(m), "dense, launch %d", i)
	}
	require.True(t, ds.firsts(m), "measured again")
	require.True(t, ds.firsts(m), "until it learns again")
	ds.learn(m, 5, 5)
	ds.learn(m, 1, 5)
	require.True(t, ds.firsts(m), "measured not dense: forgotten")

	shared := &gpu.Memory{ID: 2, Space: gpu.SharedSpace}
	ds.learn(shared, 5, 0)
	require.True(t, ds.firsts(shared), "each block's shared memory is new")
	require.Empty(t, ds.m)

	for id := range uint64(maxDensities) {
		ds.learn(&gpu.Memory{ID: 100 + id}, 1, 0)
	}
	require.Len(t, ds.m, maxDensities)
	ds.learn(&gpu.Memory{ID: 100}, 1, 0)
	require.Len(t, ds.m, maxDensities, "a known memory updates in place")
	ds.learn(&gpu.Memory{ID: 99}, 1, 0)
	require.Len(t, ds.m, 1, "a new one past the bound starts the map over")
}

// TestLostFirstRecord: a slot holding a stamp no thread kept a record of
// (a bug of this package) fails the check with the granule, the memory
// and the thread named, and leaves the entry unlocked and the slot as it
// was, so that the launch's other threads do not spin on it forever.
func TestLostFirstRecord(t *testing.T) {
	l, th, s := firstFixture(4)
	d, mem := l.d, s.mem
	lost := newStamp(2, 0, 7) // thread 2, which made no record
	s.slot(1).Store(lost)
	var c access
	th.fill(&c.rec, &gpu.Access{Mem: mem, Op: gpu.OpLoad})
	require.PanicsWithValue(t, `race: granule 1 of global "x" holds the stamp 0xc0000000007 of thread 2, which kept no record of it`,
		func() { d.checkEntry(th, s, 1, false, &c, c.rec.stamp(), 0, nil) })
	e, _ := s.at(1)
	require.NotEqual(t, uint64(locked), e.word.Load(), "the entry is unlocked")
	require.Equal(t, lost, s.slot(1).Load(), "the slot is untouched")
}

// firstFixture starts block 0 of a one-block launch of 4 threads, warps
// of warpSize lanes, and returns it, its thread 0, and the first-record
// metadata of a 2-granule global memory x.
func firstFixture(warpSize int) (*launch, *thread, *shadow) {
	d := New(Options{})
	g := &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 4, Threads: 4, WarpSize: warpSize, Warps: 4 / warpSize}
	l := newLaunch(d, g)
	l.start(0)
	mem := &gpu.Memory{ID: 1, Name: "x", Space: gpu.GlobalSpace, Len: 2, ElemSize: 4}
	s := &shadow{mem: mem, n: 2, pages: make([]pageRef, 1), firsts: true, fpool: &d.firstPages, pool: &d.pages, bytes: &d.bytes, dens: &d.dens}
	return l, &l.block[0].Load().threads[0], s
}
