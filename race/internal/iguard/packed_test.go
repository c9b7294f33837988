package iguard

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// TestPackedRoundTrip: a record whose counters fit packs and unpacks
// whole, up to each field's largest value; one counter past its field
// makes pack refuse the record and leave the packed bytes as they were.
func TestPackedRoundTrip(t *testing.T) {
	top := record{tid: maxTid, seq: 1<<seqBits - 1, bar: 1<<barBits - 1, wep: 1<<wepBits - 1, grid: 1<<gridBits - 1, tile: 1<<tileBits - 1, op: gpu.OpDec, order: gpu.Release, scope: scope.System}
	for _, r := range []record{
		{},
		{tid: 1, seq: 1, bar: 1, wep: 1, grid: 1, tile: 1, op: gpu.OpLoad, order: gpu.Volatile, scope: scope.Block},
		top,
		{tid: 70000, seq: 12, bar: 300, wep: 5000, grid: 5, tile: 2, op: gpu.OpStore, order: gpu.Relaxed, scope: scope.Device},
	} {
		a := gpu.Access{Op: r.op, Order: r.order, Scope: r.scope}
		r.strong = isStrong(&a)
		var p packed
		require.True(t, p.pack(&r), "%+v fits", r)
		var u record
		p.unpack(&u)
		require.Equal(t, r, u, "%+v", r)
	}
	for name, past := range map[string]func(*record){
		"tid": func(r *record) { r.tid++ }, "seq": func(r *record) { r.seq++ }, "bar": func(r *record) { r.bar++ }, "wep": func(r *record) { r.wep++ },
		"tile": func(r *record) { r.tile++ }, "grid": func(r *record) { r.grid++ },
	} {
		r := top
		past(&r)
		p := packed{1, 2, 3}
		require.False(t, p.pack(&r), "%s past its field packs", name)
		require.Equal(t, packed{1, 2, 3}, p, "a refused pack wrote %s", name)
	}
}

// counterFixture is a launch of one block of two warps of 32 lanes, for
// checks of two threads' stores to one granule through a packed entry.
func counterFixture() *launch {
	l := newLaunch(testEngine(), &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 64, Threads: 64, WarpSize: 32, Warps: 2})
	l.start(0)
	return l
}

// oneGranule returns the metadata of a one-granule memory.
func oneGranule() *shadow {
	return &shadow{n: 1, pages: make([]pageRef, 1), bytes: new(atomic.Int64), widened: new(atomic.Uint64), pool: new(sync.Pool)}
}

// checkStore checks a store by th against granule 0 of s as checkEntry
// does: loaded, checked and stored back.
func checkStore(s *shadow, th *thread) kind.Kind {
	e, _ := s.at(0)
	a := gpu.Access{Op: gpu.OpStore}
	c := access{th: th, store: true, locks: th.lockSet()}
	th.fill(&c.rec, &a)
	var m meta
	var f finding
	s.load(0, e, &m, &th.l.sets, true)
	k := m.check(&c, nil, nil, &f)
	s.save(0, e, &m, &th.l.sets)
	return k
}

// storePair checks a store by thread i, runs between, and returns the
// kind of race a store by thread j then finds, and whether the granule's
// entry went wide.
func storePair(l *launch, i, j int, between func()) (kind.Kind, bool) {
	s := oneGranule()
	b := l.res.get(0)
	checkStore(s, &b.threads[i])
	between()
	k := checkStore(s, &b.threads[j])
	e, _ := s.at(0)
	return k, e.flags&fWide != 0
}

// counterCases are the values a whole-counter test runs for a field of
// bits: the count before the first store, base, and the syncs between the
// stores, delta. The pair is a race exactly when delta is 0; a multiple
// of the field's size looks like no sync to a counter narrowed to the
// field, and must not to a whole one.
func counterCases(bits uint) [][2]uint32 {
	m := uint32(1) << bits
	return [][2]uint32{{0, 0}, {0, 1}, {m + 5, 0}, {m + 5, 1}, {m - 1, 0}, {m - 1, 1}, {1, m - 1}, {0, m}, {7, m}, {m + 5, 3 * m}, {0, m + 1}}
}

// requireWhole requires race want for case c of a counter of bits when
// no sync separates the stores and none otherwise, and the entry wide
// exactly when a store's count did not fit the field: the second store's
// count is base plus delta if the threads share the counter, else 0.
func requireWhole(t *testing.T, c [2]uint32, bits uint, shared bool, want, got kind.Kind, wide bool) {
	t.Helper()
	msg := fmt.Sprintf("base %d, %d syncs between", c[0], c[1])
	last := c[0]
	if shared {
		last += c[1]
	}
	require.Equal(t, last >= 1<<bits, wide, "wide, %s", msg)
	if c[1] == 0 {
		require.Equal(t, want, got, msg)
		return
	}
	require.Zero(t, got, msg)
}

// TestBarrierEpochWhole: stores of two warps of a block race unless a
// barrier separates them, however many barriers the block passed, and
// 2^barBits barriers between them are not taken for none.
func TestBarrierEpochWhole(t *testing.T) {
	for _, c := range counterCases(barBits) {
		l := counterFixture()
		bar := &l.res.get(0).bar
		bar.Store(c[0])
		k, wide := storePair(l, 0, 32, func() { bar.Add(c[1]) })
		requireWhole(t, c, barBits, true, kind.MissingBlockFence, k, wide)
	}
}

// TestGridEpochWhole: the same for grid.Sync epochs.
func TestGridEpochWhole(t *testing.T) {
	for _, c := range counterCases(gridBits) {
		l := counterFixture()
		l.grid.Store(c[0])
		k, wide := storePair(l, 0, 32, func() { l.grid.Add(c[1]) })
		requireWhole(t, c, gridBits, true, kind.MissingBlockFence, k, wide)
	}
}

// TestTileCountWhole: the same for tile-sync counts. The first thread's
// last tile sync held both threads; whether it came after the first
// store is told by the count alone.
func TestTileCountWhole(t *testing.T) {
	for _, c := range counterCases(tileBits) {
		l := counterFixture()
		th := &l.res.get(0).threads[0]
		th.tileLo.Store(0)
		th.tileHi.Store(64)
		th.tileN.Store(c[0])
		k, wide := storePair(l, 0, 32, func() { th.tileN.Add(c[1]) })
		requireWhole(t, c, tileBits, false, kind.MissingBlockFence, k, wide)
	}
}

// TestFenceSeqWhole: a block fence between two warps' stores orders them
// whatever the first thread's fence count, and a count past the packed
// field is not taken for an earlier one.
func TestFenceSeqWhole(t *testing.T) {
	for _, c := range []struct {
		base  uint32 // the first thread's fences before its store
		fence bool   // whether it fences after the store
	}{{0, false}, {0, true}, {1<<seqBits - 2, false}, {1<<seqBits - 2, true}, {1<<seqBits - 1, true}, {1 << seqBits, false}, {1<<seqBits + 9, true}} {
		l := counterFixture()
		th := &l.res.get(0).threads[0]
		th.seq.Store(c.base)
		k, wide := storePair(l, 0, 32, func() {
			if c.fence {
				th.fence(scope.Block)
			}
		})
		want := kind.MissingBlockFence
		if c.fence {
			want = 0
		}
		assert.Equal(t, want, k, "%d fences before, fence between: %v", c.base, c.fence)
		assert.Equal(t, c.base >= 1<<seqBits, wide, "wide after %d fences", c.base)
	}
}

// TestLaneEpochWhole: lane 0's store is ordered before lane 1's by a
// syncwarp of the two however many collectives lane 0 made alone before
// it, past the packed field too; with no syncwarp between, the pair is a
// race, and a lane's own stores stay in program order.
func TestLaneEpochWhole(t *testing.T) {
	for _, c := range []struct {
		before uint32 // collectives lane 0 made alone before its store
		sync   bool   // a syncwarp of lanes 0 and 1 between the stores
		j      int    // the second thread
		want   kind.Kind
	}{
		{0, true, 1, 0},
		{0, false, 1, kind.MissingSyncwarp},
		{1<<wepBits - 1, true, 1, 0},
		{1 << wepBits, true, 1, 0},
		{1<<wepBits + 1000, true, 1, 0},
		{1<<wepBits + 1000, false, 1, kind.MissingSyncwarp},
		{1<<wepBits + 1000, false, 0, 0},
	} {
		l := counterFixture()
		w := l.res.get(0).threads[0].w
		for range c.before {
			w.sync(1)
		}
		k, wide := storePair(l, 0, c.j, func() {
			if c.sync {
				w.sync(3)
			}
		})
		assert.Equal(t, c.want, k, "%d collectives before, sync %v, then thread %d", c.before, c.sync, c.j)
		assert.Equal(t, c.before >= 1<<wepBits, wide, "wide after %d collectives", c.before)
	}
}

// TestCheckAllocs: a check through a packed entry, unpacking and packing
// it and naming a held lockset already named, allocates nothing; nor
// does one through a wide entry once its page's wide array exists.
func TestCheckAllocs(t *testing.T) {
	l := counterFixture()
	th := &l.res.get(0).threads[0]
	held := &lockSet{ids: []lockID{{key: lockKey{mem: &gpu.Memory{ID: 1}, gran: 3}}}}
	th.w.table.set.Store(held)
	s := oneGranule()
	run := func() { checkStore(s, th) }
	run()
	e, _ := s.at(0)
	require.Same(t, held, l.sets.lookup(e.locks))
	assert.Zero(t, testing.AllocsPerRun(100, run), "packed")
	l.res.get(0).bar.Store(1 << barBits)
	run()
	require.NotZero(t, e.flags&fWide)
	assert.Zero(t, testing.AllocsPerRun(100, run), "wide")
}

// TestEntrySaveLoad: an entry stores a meta's flags, lockset and last
// accessor, moves its other records as the check says (a store's record
// is also the last writer and clears the other reader; a shift makes the
// last accessor the other reader), and loads them as they were; a load
// leaves the other reader, which only a store reads, zero. The same holds
// for records too wide to pack, and across the step where an entry's
// packed records go wide.
func TestEntrySaveLoad(t *testing.T) {
	a := record{tid: 9, seq: 7, grid: 1, op: gpu.OpStore, order: gpu.Relaxed, scope: scope.Device, strong: true}
	b := record{tid: 5, seq: 2, bar: 3, op: gpu.OpLoad}
	c := record{tid: 4, tile: 2, wep: 6, op: gpu.OpLoad}
	wideB, wideC := b, c
	wideB.bar, wideC.wep = 1<<barBits, 1<<wepBits+6
	for _, tc := range []struct {
		name   string
		b, c   record
		wideAt int // the step from which the entry is wide, or 3
	}{
		{"packed", b, c, 3},
		{"wide from the shift", wideB, c, 1},
		{"wide from the last load", b, wideC, 2},
	} {
		saveLoadSteps(t, tc.name, a, tc.b, tc.c, tc.wideAt)
	}
	wideA := a
	wideA.grid = 1 << gridBits
	saveLoadSteps(t, "wide from the first store", wideA, b, c, 0)
}

// saveLoadSteps saves a store a, then a load b that shifts the last
// accessor to the other reader, then a load c that moves nothing, in one
// entry, checking what it loads back after each, and that the entry is
// wide from step wideAt on.
func saveLoadSteps(t *testing.T, name string, a, b, c record, wideAt int) {
	var tab lockTable
	set := &lockSet{ids: []lockID{{key: lockKey{mem: &gpu.Memory{ID: 1}, gran: 3}}}}
	s := oneGranule()
	e, _ := s.at(0)
	for i, step := range []struct {
		r     record
		moved uint8
		w, o  record
	}{
		{a, movedStore, a, record{}},
		{b, movedShift, a, a},
		{c, 0, a, a},
	} {
		var m meta
		s.load(0, e, &m, &tab, true)
		m.r, m.moved, m.locks = step.r, step.moved, set
		m.flags |= fValid | fWriter | fBlkShared
		s.save(0, e, &m, &tab)
		m = meta{}
		s.load(0, e, &m, &tab, true)
		msg := fmt.Sprintf("%s, step %d", name, i)
		require.Equal(t, meta{flags: m.flags, locks: set, r: step.r, w: step.w, o: step.o}, m, msg)
		require.Equal(t, i >= wideAt, m.flags&fWide != 0, "wide, %s", msg)
		var l meta
		s.load(0, e, &l, &tab, false)
		require.Equal(t, record{}, l.o, "a load reads no other reader, %s", msg)
	}
}
