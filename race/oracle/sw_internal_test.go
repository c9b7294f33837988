package oracle

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestSynchronizesWithMatchesDefinition: on random traces of scoped
// accesses, read-modify-write chains and fences, the graph that the
// scan's summaries build has exactly the reachability of the graph built
// from the definition, pair by pair: every strong read paired with every
// write of its release sequence, each pattern found by walking program
// order (refSynchronizesWith).
func TestSynchronizesWithMatchesDefinition(t *testing.T) {
	t.Parallel()
	for seed := range uint64(300) {
		tr := randomTrace(seed)
		ref := program(tr)
		refSynchronizesWith(ref)
		ref.fenceSC()
		want, got := closure(ref), closure(build(tr))
		require.Equal(t, want.bits, got.bits, "trace %d: %d events", seed, len(tr.Events))
	}
}

// TestSynchronizesWithSeesEdges: the random traces are not trivial: most
// add synchronizes-with edges, so the comparison above compares some.
func TestSynchronizesWithSeesEdges(t *testing.T) {
	t.Parallel()
	with := 0
	for seed := range uint64(100) {
		tr := randomTrace(seed)
		g := program(tr)
		n := edges(g)
		g.synchronizesWith()
		if edges(g) > n {
			with++
		}
	}
	require.Greater(t, with, 50)
}

// BenchmarkAnalyzeSpinLock analyses the trace of a contended spin lock
// whose waiters poll with atomicExch, so the lock word's release sequence
// holds every poll.
func BenchmarkAnalyzeSpinLock(b *testing.B) {
	tr := spinLockTrace(64, 4000)
	b.ResetTimer()
	for range b.N {
		Analyze(tr)
	}
}

// edges returns the number of edges of g.
func edges(g *graph) int {
	n := 0
	for _, ps := range g.preds {
		n += len(ps)
	}
	return n
}

// randomTrace returns a trace of two blocks of eight threads in warps of
// four, of random accesses to two words of two memories (loads, stores
// and read-modify-writes of every order and scope) and fences.
func randomTrace(seed uint64) *Trace {
	r := rand.New(rand.NewPCG(seed, 1))
	mems := []*gpu.Memory{{ID: 1}, {ID: 2}}
	tr := &Trace{Grid: gpu.Grid{Blocks: 2, BlockSize: 8, Threads: 16, WarpSize: 4, Warps: 2}}
	for range 50 + r.IntN(600) {
		th := r.IntN(16)
		e := Event{Thread: scope.Place{Thread: th, Warp: th / 4, Block: th / 8}, Rank: th % 8}
		if r.IntN(5) == 0 {
			e.What, e.Scope, e.Order = FenceEvent, scope.Scope(1+r.IntN(4)), gpu.AcqRel
			if r.IntN(2) == 0 {
				e.Order = gpu.SeqCst
			}
		} else {
			e.Access = randomAccess(r, mems)
		}
		tr.Events = append(tr.Events, e)
	}
	return tr
}

// randomAccess returns a random access to one of two words of mems, or
// to both.
func randomAccess(r *rand.Rand, mems []*gpu.Memory) gpu.Access {
	ops := []gpu.Op{gpu.OpLoad, gpu.OpStore, gpu.OpAdd, gpu.OpExch, gpu.OpCAS}
	a := gpu.Access{Mem: mems[r.IntN(len(mems))], Offset: uint64(4 * r.IntN(2)), Size: 4, Op: ops[r.IntN(len(ops))]}
	if a.Offset == 0 && r.IntN(4) == 0 {
		a.Size = 8 // overlapping the word at offset 4
	}
	a.Order, a.Scope = gpu.Order(r.IntN(int(gpu.SeqCst)+1)), scope.Scope(1+r.IntN(4))
	if a.Op.IsRMW() && a.Order == gpu.Weak || a.Op == gpu.OpLoad && a.Order == gpu.Release ||
		a.Op == gpu.OpStore && a.Order == gpu.Acquire {
		a.Order = gpu.Relaxed
	}
	if a.Order == gpu.Weak {
		a.Scope = scope.Thread
	}
	a.Cmp = uint64(r.IntN(2)) // a CAS fails half the time: it reads, and stores nothing
	return a
}

// spinLockTrace returns the trace of threads of one block taking one
// device-scope lock in turn, each holder fencing, writing x and releasing,
// while the others poll the lock with atomicExch: polls events in all.
func spinLockTrace(threads, polls int) *Trace {
	lock, x := &gpu.Memory{ID: 1}, &gpu.Memory{ID: 2}
	tr := &Trace{Grid: gpu.Grid{Blocks: 1, BlockSize: threads, Threads: threads, WarpSize: 32, Warps: (threads + 31) / 32}}
	at := func(th int) scope.Place { return scope.Place{Thread: th, Warp: th / 32} }
	exch := gpu.Access{Mem: lock, Size: 4, Op: gpu.OpExch, Order: gpu.Relaxed, Scope: scope.Device, Arg: 1}
	for k := range polls {
		holder, poller := k/(polls/threads), k%threads
		tr.Events = append(tr.Events, Event{Thread: at(poller), Access: exch})
		if poller == holder {
			write := gpu.Access{Mem: x, Size: 4, Op: gpu.OpStore}
			free := exch
			free.Arg = 0
			tr.Events = append(tr.Events, Event{What: FenceEvent, Thread: at(holder), Scope: scope.Device, Order: gpu.SeqCst},
				Event{Thread: at(holder), Access: write},
				Event{What: FenceEvent, Thread: at(holder), Scope: scope.Device, Order: gpu.SeqCst},
				Event{Thread: at(holder), Access: free})
		}
	}
	return tr
}

// refSynchronizesWith is synchronizesWith as the definition states it:
// each strong read pairs with every write of its release sequence, and
// each pair's patterns are found by walking the threads' program order.
func refSynchronizesWith(g *graph) {
	po, pos := programOrder(g.tr)
	mo := make(map[location][]int32)
	for i := range g.tr.Events {
		e := &g.tr.Events[i]
		if e.What != AccessEvent {
			continue
		}
		loc := location{e.Access.Mem.ID, e.Access.Offset}
		if e.Access.Op.Reads() && e.Strong() {
			for k := len(mo[loc]) - 1; k >= 0; k-- {
				h := mo[loc][k]
				refPair(g, po, pos, h, int32(i))
				if !g.tr.Events[h].Access.Op.IsRMW() {
					break
				}
			}
		}
		if e.Stores() {
			mo[loc] = append(mo[loc], int32(i))
		}
	}
}

// programOrder returns each thread's accesses and fences in program
// order, and each event's index in its thread's list.
func programOrder(tr *Trace) ([][]int32, []int32) {
	po, pos := make([][]int32, tr.Grid.Threads), make([]int32, len(tr.Events))
	for i := range tr.Events {
		if e := &tr.Events[i]; e.What != SyncEvent {
			t := e.Thread.Thread
			pos[i], po[t] = int32(len(po[t])), append(po[t], int32(i))
		}
	}
	return po, pos
}

// refPair adds the edge from the release pattern ending in write h to
// the acquire pattern starting with read r, if both exist.
func refPair(g *graph, po [][]int32, pos []int32, h, r int32) {
	w, rd := &g.tr.Events[h], &g.tr.Events[r]
	if w.Thread.Thread == rd.Thread.Thread || !w.Strong() ||
		!covers(w.Access.Scope, w, rd) || !covers(rd.Access.Scope, w, rd) {
		return
	}
	src, dst := int32(-1), int32(-1)
	if w.Access.Order.Releases() {
		src = h
	} else {
		src = refFence(g, po[w.Thread.Thread], pos[h], -1, w, rd)
	}
	if rd.Access.Order.Acquires() {
		dst = r
	} else {
		dst = refFence(g, po[rd.Thread.Thread], pos[r], 1, rd, w)
	}
	if src >= 0 && dst >= 0 {
		g.preds[dst] = append(g.preds[dst], src)
	}
}

// refFence walks po from index at in direction dir to the first fence
// whose scope covers a's and b's threads; -1 if none.
func refFence(g *graph, po []int32, at, dir int32, a, b *Event) int32 {
	for k := at + dir; k >= 0 && int(k) < len(po); k += dir {
		if f := &g.tr.Events[po[k]]; f.What == FenceEvent && covers(f.Scope, a, b) {
			return po[k]
		}
	}
	return -1
}
