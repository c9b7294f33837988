package iguard

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// TestFirstPacking: a first holds its access exactly, atomics included,
// at the widest fields each layout has (with history, its call path's
// handle too), and refuses what does not fit rather than wrap: a thread
// id, seq, barrier epoch or handle past its field.
func TestFirstPacking(t *testing.T) {
	for _, paths := range []bool{false, true} {
		l := layoutFor(paths)
		maxSeq, maxBar, maxH := uint32(1)<<l.seqBits-1, uint32(1)<<l.barBits-1, uint32(1)<<l.handleBits-1
		for _, c := range []struct {
			gid      int
			a        gpu.Access
			seq, bar uint32
			h        uint32
		}{
			{0, gpu.Access{Op: gpu.OpLoad}, 0, 0, 0},
			{l.threads() - 1, gpu.Access{Op: gpu.OpStore, Order: gpu.Release, Scope: scope.System}, maxSeq, maxBar, maxH},
			{12345, gpu.Access{Op: gpu.OpLoad, Order: gpu.Volatile, Scope: scope.Block}, 7, 9, maxH / 3},
			{l.threads() - 1, gpu.Access{Op: gpu.OpCAS, Order: gpu.Acquire, Scope: scope.System}, 3, 1, 1},
			{77, gpu.Access{Op: gpu.OpAdd, Order: gpu.Relaxed, Scope: scope.Device}, 0, 0, maxH},
			{5, gpu.Access{Op: gpu.OpDec, Order: gpu.Release, Scope: scope.Warp}, maxSeq, maxBar, 0},
		} {
			c.h = min(c.h, maxH) // no handle field without history
			f := l.pack(c.gid, &c.a, c.seq, c.bar, c.h)
			require.NotZero(t, f)
			require.Zero(t, f&expanded, "the lock bit stays clear")
			require.Equal(t, c.gid, l.thread(f))
			require.Equal(t, c.h, l.handle(f), "paths %v", paths)
			u := l.unpack(f)
			require.Equal(t, record{tid: c.gid + 1, seq: c.seq, bar: c.bar, op: c.a.Op, order: c.a.Order, scope: c.a.Scope, strong: isStrong(&c.a)}, u.rec)
			require.Equal(t, c.a.Op.Writes(), u.store)
			require.Nil(t, u.locks)
		}
		load := &gpu.Access{Op: gpu.OpLoad}
		require.Zero(t, l.pack(l.threads(), load, 0, 0, 0), "thread id past the field")
		require.Zero(t, l.pack(0, load, maxSeq+1, 0, 0), "seq past the field")
		require.Zero(t, l.pack(0, load, 0, maxBar+1, 0), "barrier epoch past the field")
		require.Zero(t, l.pack(0, load, 0, 0, maxH+1), "handle past the field")
		require.Zero(t, l.pack(0, load, 0, 0, noHandle), "no handle")
		require.Equal(t, 63, int(l.handleShift+l.handleBits), "the fields fill the word below the lock bit")
	}
}

// TestSettleWithoutFirst: an access a first cannot hold never makes a
// first touch; it needs the entry, and a slot with a first still settles
// the owner's repeat.
func TestSettleWithoutFirst(t *testing.T) {
	s := &shadow{mem: &gpu.Memory{ID: 3}, pages: make([]pageRef, 1), n: 4, firsts: true, lay: layoutFor(false), fpool: new(sync.Pool),
		bytes: new(atomic.Int64), dens: new(densities)}
	th, load := &thread{}, &gpu.Access{Op: gpu.OpLoad}
	done, hasEntry := s.settleFirst(th, load, 0, 0)
	require.False(t, done)
	require.False(t, hasEntry)
	require.Zero(t, s.slot(0).Load(), "no first touch without a first")

	lay := layoutFor(false)
	f := lay.pack(8, load, 0, 0, 0)
	s.slot(1).Store(f)
	done, _ = s.settleFirst(th, load, 1, f)
	require.True(t, done, "a repeat of the first access")
	require.EqualValues(t, 1, th.n.repeats)

	s.slot(2).Store(expanded)
	done, hasEntry = s.settleFirst(th, load, 2, f)
	require.False(t, done)
	require.True(t, hasEntry)
	require.EqualValues(t, 4*8, s.bytes.Load(), "the slots of a 4-granule memory")
	require.EqualValues(t, 4*8, s.release())
	require.Nil(t, s.pages[0].f.Load())
	require.Contains(t, s.dens.m, shared.KeyOf(s.mem), "one of two touched granules expanded: at least half, dense")
}

// TestSupersedeNeedsNoLocks: a thread's store replaces its own first
// only when it has seen no lock activity, since a first holds no
// lockset: with a lock taken between the load and the store, the store
// takes the entry and the program-order check intersects the locksets,
// as with full entries.
func TestSupersedeNeedsNoLocks(t *testing.T) {
	_, th, s := firstFixture(2)
	mem := s.mem
	load, store := &gpu.Access{Mem: mem, Op: gpu.OpLoad}, &gpu.Access{Mem: mem, Op: gpu.OpStore}

	for i, lock := range []bool{false, true} {
		g := uint64(i)
		_, f := th.stamps(load, &s.lay, 0)
		done, _ := s.settleFirst(th, load, g, f)
		require.True(t, done, "the load is the first touch")
		v := s.slot(g).Load()
		if lock { // a lock taken between the load and the store
			th.w.table.set.Store(&lockSet{ids: []lockID{{key: lockKey{mem: mem, gran: 7}}}})
			th.w.table.ver.Add(1)
		}
		_, f = th.stamps(store, &s.lay, 0)
		done, _ = s.settleFirst(th, store, g, f)
		if !lock {
			require.True(t, done, "no lock: the store supersedes")
			require.Equal(t, f, s.slot(g).Load())
			require.True(t, s.lay.unpack(s.slot(g).Load()).store)
		} else {
			require.Zero(t, f, "no first after lock activity")
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

// firstFixture starts block 0 of a one-block launch of 4 threads, warps
// of warpSize lanes, and returns it, its thread 0, and the first-record
// metadata of a 2-granule global memory x.
func firstFixture(warpSize int) (*launch, *thread, *shadow) {
	d := testEngine()
	g := &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 4, Threads: 4, WarpSize: warpSize, Warps: 4 / warpSize}
	l := newLaunch(d, g)
	l.start(0)
	mem := &gpu.Memory{ID: 1, Name: "x", Space: gpu.GlobalSpace, Len: 2, ElemSize: 4}
	s := &shadow{mem: mem, n: 2, pages: make([]pageRef, 1), firsts: true, lay: layoutFor(false), fpool: &d.firstPages, pool: &d.pages, bytes: &d.bytes, dens: &d.dens}
	return l, &l.res.get(0).threads[0], s
}

// TestFirstRepeatNeedsItsPath: with history, a first's repeat must come
// from the same call path, as an entry's must: the same thread's same
// access from another line takes the entry, so that the line is
// recorded; and a first whose path has no handle is never made.
func TestFirstRepeatNeedsItsPath(t *testing.T) {
	_, th, s := firstFixture(2)
	s.lay = layoutFor(true)
	load := &gpu.Access{Mem: s.mem, Op: gpu.OpLoad}
	_, f := th.stamps(load, &s.lay, 1)
	done, _ := s.settleFirst(th, load, 0, f)
	require.True(t, done, "the first touch")
	done, _ = s.settleFirst(th, load, 0, f)
	require.True(t, done, "a repeat from the same path")
	_, g := th.stamps(load, &s.lay, 2)
	require.NotEqual(t, f, g)
	done, hasEntry := s.settleFirst(th, load, 0, g)
	require.False(t, done, "another path takes the entry")
	require.False(t, hasEntry)
	require.Equal(t, f, s.slot(0).Load(), "the first stays until the entry takes it")
	_, f = th.stamps(load, &s.lay, noHandle)
	require.Zero(t, f, "no handle, no first")
}
