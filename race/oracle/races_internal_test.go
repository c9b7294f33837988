package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestFirstRaceMatchesPairwise: on random traces, mostly or only of
// atomics so that many granules have no race or a late one, firstRace
// finds the same pair as a walk of every pair in order (refFirstRace) in
// every granule.
func TestFirstRaceMatchesPairwise(t *testing.T) {
	t.Parallel()
	found, clean := 0, 0
	for seed := range uint64(300) {
		tr := randomTrace(seed)
		mostlyAtomic(tr, seed)
		rc := closure(build(tr))
		for gr, accs := range byGranule(tr) {
			a, b, ok := firstRace(tr, rc, accs)
			ra, rb, rok := refFirstRace(tr, rc, accs)
			require.Equal(t, [3]any{ra, rb, rok}, [3]any{a, b, ok}, "trace %d, %v", seed, gr)
			if ok {
				found++
			} else {
				clean++
			}
		}
	}
	require.Positive(t, found)
	require.Positive(t, clean)
}

// mostlyAtomic turns tr's accesses into atomics or volatile accesses,
// by seed modulo 3: nine in ten into relaxed atomics or volatile
// accesses of random scope, whose races are mostly the weak rest's; all
// of them, which race only through scope, size or the warp-synchronous
// rule; or all into word-sized relaxed atomics of device or system
// scope, which do not race.
func mostlyAtomic(tr *Trace, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range tr.Events {
		a := &tr.Events[i].Access
		if tr.Events[i].What != AccessEvent || seed%3 == 0 && r.IntN(10) == 0 {
			continue
		}
		a.Order, a.Scope = gpu.Relaxed, scope.Scope(2+r.IntN(3))
		switch {
		case seed%3 == 2:
			a.Scope, a.Size = scope.Scope(3+r.IntN(2)), 4
		case !a.Op.IsRMW() && r.IntN(2) == 0:
			a.Order = gpu.Volatile
		}
	}
}

// refFirstRace is firstRace as the definition states it: every pair in
// order of the later access, then the earlier.
func refFirstRace(tr *Trace, rc *reach, accs []int) (int, int, bool) {
	for j, b := range accs {
		for _, a := range accs[:j] {
			if races(&tr.Events[a], &tr.Events[b]) && !rc.before(a, b) {
				return a, b, true
			}
		}
	}
	return 0, 0, false
}

// TestFirstRaceKeepsShapesApart: thread 0's access X, which does not race
// with b, then its access Y, which does, differing from X in one thing
// that decides a race; b is the last access. The first race is Y's with
// b, so accesses that differ in that one thing are not taken as alike.
func TestFirstRaceKeepsShapesApart(t *testing.T) {
	t.Parallel()
	relaxed := func(op gpu.Op, s scope.Scope, off uint64, size uint8) gpu.Access {
		return gpu.Access{Op: op, Order: gpu.Relaxed, Scope: s, Offset: off, Size: size}
	}
	weak := func(op gpu.Op) gpu.Access { return gpu.Access{Op: op, Scope: scope.Thread, Size: 4} }
	volatile := func(op gpu.Op) gpu.Access {
		return gpu.Access{Op: op, Order: gpu.Volatile, Scope: scope.System, Size: 4}
	}
	lane0, lane1, block1 := 0, 1, 32
	cases := []struct {
		name    string
		x, y, b gpu.Access
		bThread int
	}{
		{"stores", weak(gpu.OpLoad), weak(gpu.OpStore), weak(gpu.OpLoad), lane1},
		{"order", relaxed(gpu.OpStore, scope.System, 0, 4), volatile(gpu.OpStore), volatile(gpu.OpLoad), lane1},
		{"scope", relaxed(gpu.OpStore, scope.Device, 0, 4), relaxed(gpu.OpStore, scope.Block, 0, 4), relaxed(gpu.OpLoad, scope.Device, 0, 4), block1},
		{"size", relaxed(gpu.OpStore, scope.Device, 0, 4), relaxed(gpu.OpStore, scope.Device, 0, 8), relaxed(gpu.OpLoad, scope.Device, 0, 4), lane1},
		{"offset", relaxed(gpu.OpStore, scope.Device, 4, 8), relaxed(gpu.OpStore, scope.Device, 0, 8), relaxed(gpu.OpLoad, scope.Device, 4, 8), lane1},
	}
	mem := &gpu.Memory{ID: 1}
	for _, c := range cases {
		tr := &Trace{Grid: gpu.Grid{Blocks: 2, BlockSize: 32, Threads: 64, WarpSize: 32, Warps: 1}}
		for _, e := range []struct {
			th int
			a  gpu.Access
		}{{lane0, c.x}, {lane0, c.y}, {c.bThread, c.b}} {
			e.a.Mem = mem
			tr.Events = append(tr.Events, Event{Thread: scope.Place{Thread: e.th, Warp: e.th / 32, Block: e.th / 32}, Access: e.a})
		}
		rc := closure(build(tr))
		gr := Granule{Mem: mem, Index: int(c.b.Offset / granuleBytes)}
		a, b, ok := firstRace(tr, rc, byGranule(tr)[gr])
		require.True(t, ok, c.name)
		require.Equal(t, [2]int{1, 2}, [2]int{a, b}, c.name)
	}
}

// TestFirstRaceTakesEarliest: of two groups with a candidate, the first
// race is the earlier candidate, not the earlier group's. Thread 0's
// first load happens before the store of thread 1 (a barrier of their
// block), its second does not; thread 2's load, of another block, does
// not either, and comes between them.
func TestFirstRaceTakesEarliest(t *testing.T) {
	t.Parallel()
	mem := &gpu.Memory{ID: 1}
	load, store := gpu.Access{Mem: mem, Op: gpu.OpLoad, Size: 4}, gpu.Access{Mem: mem, Op: gpu.OpStore, Size: 4}
	at := func(th int) scope.Place { return scope.Place{Thread: th, Warp: th / 2, Block: th / 2} }
	tr := &Trace{Grid: gpu.Grid{Blocks: 2, BlockSize: 2, Threads: 4, WarpSize: 32, Warps: 1}, Events: []Event{
		{Thread: at(0), Access: load},
		{Thread: at(2), Access: load},
		{What: SyncEvent, Thread: at(1), Sync: gpu.Sync{Kind: gpu.SyncThreads, Block: 0}},
		{Thread: at(0), Access: load},
		{Thread: at(1), Access: store},
	}}
	rc := closure(build(tr))
	require.True(t, rc.before(0, 4))
	a, b, ok := firstRace(tr, rc, []int{0, 1, 3, 4})
	require.True(t, ok)
	require.Equal(t, [2]int{1, 4}, [2]int{a, b})
}
