package race

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestPackedRoundTrip: a packed record keeps its thread, fence seq and
// access whole, and the low bits of its narrowed counters; a lane epoch
// from wepUnknown on reads back as the largest epoch.
func TestPackedRoundTrip(t *testing.T) {
	for _, r := range []record{
		{},
		{tid: 1, seq: 1, bar: 1, wep: 1, grid: 1, tile: 1, op: gpu.OpLoad, order: gpu.Volatile, scope: scope.Block},
		{tid: maxThreads, seq: math.MaxUint32, bar: 1<<barBits - 1, wep: wepUnknown - 1, grid: 1<<gridBits - 1, tile: 1<<tileBits - 1, op: gpu.OpDec, order: gpu.Release, scope: scope.System},
		{tid: 70000, seq: 12, bar: 1<<barBits + 3, wep: 5000, grid: 1<<gridBits + 5, tile: 1<<tileBits + 2, op: gpu.OpStore, order: gpu.Relaxed, scope: scope.Device},
	} {
		a := gpu.Access{Op: r.op, Order: r.order, Scope: r.scope}
		r.strong = isStrong(&a)
		var p packed
		p.pack(&r)
		var u record
		p.unpack(&u)
		want := r
		want.bar %= 1 << barBits
		want.grid %= 1 << gridBits
		want.tile %= 1 << tileBits
		if r.wep >= wepUnknown {
			want.wep = math.MaxUint32
		}
		require.Equal(t, want, u, "%+v", r)
		p.pack(&u)
		var again record
		p.unpack(&again)
		require.Equal(t, u, again, "repacking changes nothing")
	}
}

// counterFixture is a launch of one block of two warps of 32 lanes, for
// checks of two threads' stores to one granule through a packed entry.
func counterFixture() *launch {
	l := newLaunch(New(Options{}), &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 64, Threads: 64, WarpSize: 32, Warps: 2})
	l.start(0)
	return l
}

// storePair checks a store by thread i, runs between, and returns the
// kind of race a store by thread j then finds, both checked through
// entry e as checkEntry checks them: unpacked, checked and packed back.
func storePair(l *launch, i, j int, between func()) Kind {
	var e entry
	step := func(th *thread) Kind {
		a := gpu.Access{Op: gpu.OpStore}
		c := access{th: th, store: true, locks: th.lockSet()}
		th.fill(&c.rec, &a)
		var m meta
		var f finding
		e.load(&m, &l.sets, true)
		k := m.check(&c, nil, nil, &f)
		e.save(&m, &l.sets)
		return k
	}
	b := l.res.get(0)
	step(&b.threads[i])
	between()
	return step(&b.threads[j])
}

// wrapCases are the counter values a wrap-around test runs: the count
// before the first store, base, and the syncs between the stores,
// delta. The pair is a race exactly when delta is a multiple of the
// counter's modulus: 0 is no sync at all, whatever base, and a nonzero
// multiple is a wrap, which must look like no sync (the conservative
// side); any other delta, across the field's end too, orders the pair.
func wrapCases(bits uint) [][2]uint32 {
	m := uint32(1) << bits
	return [][2]uint32{{0, 0}, {0, 1}, {m + 5, 0}, {m + 5, 1}, {m - 1, 1}, {1, m - 1}, {0, m}, {7, m}, {m + 5, 3 * m}, {0, m + 1}}
}

// TestBarrierWrap: barrier epochs are compared modulo 2^barBits. Stores
// of two warps of a block with epochs past the field race unless a
// barrier separates them; 2^barBits barriers look like none.
func TestBarrierWrap(t *testing.T) {
	for _, c := range wrapCases(barBits) {
		l := counterFixture()
		bar := &l.res.get(0).bar
		bar.Store(c[0])
		k := storePair(l, 0, 32, func() { bar.Add(c[1]) })
		requireWrap(t, c, barBits, MissingBlockFence, k)
	}
}

// TestGridWrap: grid.Sync epochs are compared modulo 2^gridBits.
func TestGridWrap(t *testing.T) {
	for _, c := range wrapCases(gridBits) {
		l := counterFixture()
		l.grid.Store(c[0])
		k := storePair(l, 0, 32, func() { l.grid.Add(c[1]) })
		requireWrap(t, c, gridBits, MissingBlockFence, k)
	}
}

// TestTileWrap: tile-sync counts are compared modulo 2^tileBits. The
// first thread's last tile sync held both threads; whether it came after
// the first store is told by the count alone.
func TestTileWrap(t *testing.T) {
	for _, c := range wrapCases(tileBits) {
		l := counterFixture()
		th := &l.res.get(0).threads[0]
		th.tileLo.Store(0)
		th.tileHi.Store(64)
		th.tileN.Store(c[0])
		k := storePair(l, 0, 32, func() { th.tileN.Add(c[1]) })
		requireWrap(t, c, tileBits, MissingBlockFence, k)
	}
}

// requireWrap requires race want for case c of a counter of bits, and
// no race otherwise (see wrapCases).
func requireWrap(t *testing.T, c [2]uint32, bits uint, want, got Kind) {
	t.Helper()
	msg := fmt.Sprintf("base %d, %d syncs between", c[0], c[1])
	if c[1]%(1<<bits) == 0 {
		require.Equal(t, want, got, msg)
		return
	}
	require.Zero(t, got, msg)
}

// TestLaneEpochSaturates: a lane epoch is kept in wepBits bits up to
// wepUnknown, which no collective orders. Lane 0's store is ordered
// before lane 1's by a syncwarp of the two while lane 0 has made fewer
// than wepUnknown collectives; from there on the pair is a race, and a
// lane's own stores stay in program order.
func TestLaneEpochSaturates(t *testing.T) {
	for _, c := range []struct {
		before uint32 // collectives lane 0 made alone before its store
		j      int    // the second thread
		want   Kind
	}{
		{0, 1, 0},
		{wepUnknown - 1, 1, 0},
		{wepUnknown, 1, MissingSyncwarp},
		{wepUnknown + 1000, 1, MissingSyncwarp},
		{wepUnknown + 1000, 0, 0},
	} {
		l := counterFixture()
		w := l.res.get(0).threads[0].w
		for range c.before {
			w.sync(1)
		}
		k := storePair(l, 0, c.j, func() { w.sync(3) })
		assert.Equal(t, c.want, k, "%d collectives before, then thread %d", c.before, c.j)
	}
}

// TestCheckAllocs: a check through a packed entry, unpacking and packing
// it and naming a held lockset already named, allocates nothing.
func TestCheckAllocs(t *testing.T) {
	l := counterFixture()
	th := &l.res.get(0).threads[0]
	held := &lockSet{ids: []lockID{{key: lockKey{mem: &gpu.Memory{ID: 1}, gran: 3}}}}
	th.w.table.set.Store(held)
	var e entry
	a := gpu.Access{Op: gpu.OpStore}
	c := access{th: th, store: true, locks: th.lockSet()}
	th.fill(&c.rec, &a)
	run := func() {
		var m meta
		var f finding
		e.load(&m, &l.sets, true)
		m.check(&c, nil, nil, &f)
		e.save(&m, &l.sets)
	}
	run()
	require.Same(t, held, l.sets.lookup(e.locks))
	assert.Zero(t, testing.AllocsPerRun(100, run))
}

// TestEntrySaveLoad: an entry packs a meta's flags, lockset and last
// accessor, moves its other records as the check says (a store's record
// is also the last writer and clears the other reader; a shift makes the
// last accessor the other reader), and unpacks them as they were; a load
// leaves the other reader, which only a store reads, zero.
func TestEntrySaveLoad(t *testing.T) {
	var tab lockTable
	set := &lockSet{ids: []lockID{{key: lockKey{mem: &gpu.Memory{ID: 1}, gran: 3}}}}
	a := record{tid: 9, seq: 7, grid: 1, op: gpu.OpStore, order: gpu.Relaxed, scope: scope.Device, strong: true}
	b := record{tid: 5, seq: 2, bar: 3, op: gpu.OpLoad}
	c := record{tid: 4, tile: 2, wep: 6, op: gpu.OpLoad}
	var e entry
	e.save(&meta{flags: fValid | fWriter, locks: set, r: a, moved: movedStore}, &tab)
	for i, step := range []struct {
		r     record
		moved uint8
		w, o  record
	}{
		{a, movedStore, a, record{}},
		{b, movedShift, a, a},
		{c, 0, a, a},
	} {
		if i > 0 {
			var m meta
			e.load(&m, &tab, true)
			m.r, m.moved, m.flags = step.r, step.moved, m.flags|fBlkShared
			e.save(&m, &tab)
		}
		var m meta
		e.load(&m, &tab, true)
		require.Equal(t, meta{flags: m.flags, locks: set, r: step.r, w: step.w, o: step.o}, m, "step %d", i)
		require.NotZero(t, m.flags&fValid)
		var l meta
		e.load(&l, &tab, false)
		require.Equal(t, record{}, l.o, "a load reads no other reader")
	}
}
