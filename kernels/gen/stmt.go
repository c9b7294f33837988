package gen

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Stmt is one statement of a generated kernel. Every thread runs every
// statement; a statement's guard decides what the thread does in it.
type Stmt interface {
	run(t *gpu.Thread, m *mem)
	String() string
}

// An Access is one guarded memory access to a data word.
type Access struct {
	Who   Guard
	Space Space
	At    Index
	Op    Op
	Order gpu.Order   // Weak, Volatile, Relaxed; Acquire for loads, Release for stores
	Scope scope.Scope // of atomics, acquire loads and release stores
}

// run performs the access if t passes the guard.
func (a Access) run(t *gpu.Thread, m *mem) {
	if a.Who.has(t.Block(), t.Rank()) {
		a.do(t, m)
	}
}

// do performs the access unguarded.
func (a Access) do(t *gpu.Thread, m *mem) {
	v := uint32(t.GlobalID() + 1)
	m.do(t, a.Space, a.At.of(t.Rank()), a.Op, a.Order, a.Scope, v, 0)
}

// String prints the access, with its guard.
func (a Access) String() string { return guarded(a.Who, a.text()) }

// text is the access without its guard.
func (a Access) text() string {
	name := "x"
	if a.Space == Shared {
		name = "s"
	}
	w := fmt.Sprintf("%s[%v]", name, a.At)
	return opText(a.Op, a.Order, a.Scope, w)
}

// opText prints an operation on word w.
func opText(op Op, o gpu.Order, s scope.Scope, w string) string {
	switch op {
	case Load:
		return fmt.Sprintf("r = %s %s", orderText(o, s), w)
	case Store:
		return fmt.Sprintf("%s %s = gid+1", orderText(o, s), w)
	case Add:
		return fmt.Sprintf("atomicAdd.%v(&%s, 1)", s, w)
	case Exch:
		return fmt.Sprintf("atomicExch.%v(&%s, gid+1)", s, w)
	}
	return fmt.Sprintf("atomicCAS.%v(&%s, 0, gid+1)", s, w)
}

// orderText names an order and scope as a prefix: "weak", "volatile",
// "relaxed.device", "acquire.block".
func orderText(o gpu.Order, s scope.Scope) string {
	if o == gpu.Weak || o == gpu.Volatile {
		return o.String()
	}
	return fmt.Sprintf("%v.%v", o, s)
}

// guarded prefixes text with its guard's condition.
func guarded(g Guard, text string) string {
	if c := g.String(); c != "" {
		return fmt.Sprintf("if (%s) %s", c, text)
	}
	return text
}

// A Fence is a guarded memory fence.
type Fence struct {
	Who   Guard
	Scope scope.Scope
}

// run fences if t passes the guard.
func (f Fence) run(t *gpu.Thread, _ *mem) {
	if f.Who.has(t.Block(), t.Rank()) {
		t.Fence(f.Scope)
	}
}

// String prints the fence, with its guard.
func (f Fence) String() string { return guarded(f.Who, fenceText(f.Scope)) }

// fenceText prints a fence of scope s as CUDA spells it.
func fenceText(s scope.Scope) string {
	switch s {
	case scope.Block:
		return "__threadfence_block()"
	case scope.System:
		return "__threadfence_system()"
	}
	return "__threadfence()"
}

// SyncThreads is __syncthreads, reached by every thread.
type SyncThreads struct{}

// run waits at the block barrier.
func (SyncThreads) run(t *gpu.Thread, _ *mem) { t.SyncThreads() }

// String prints "__syncthreads()".
func (SyncThreads) String() string { return "__syncthreads()" }

// SyncWarp is __syncwarp(Mask), run by the lanes Mask names (those that
// exist in each warp).
type SyncWarp struct{ Mask uint64 }

// run waits at __syncwarp if t's lane is named.
func (s SyncWarp) run(t *gpu.Thread, _ *mem) {
	if m := s.Mask & lanes(t); m&(1<<t.Lane()) != 0 {
		t.SyncWarp(m)
	}
}

// String prints the __syncwarp with the lanes that run it.
func (s SyncWarp) String() string {
	if s.Mask == ^uint64(0) {
		return "__syncwarp()"
	}
	return fmt.Sprintf("if (lane in %#x) __syncwarp(%#x)", s.Mask, s.Mask)
}

// lanes returns the mask of the lanes that exist in t's warp.
func lanes(t *gpu.Thread) uint64 {
	g := t.Grid()
	n := min(g.WarpSize, g.BlockSize-t.Warp()*g.WarpSize)
	if n == 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// Ballot is __ballot_sync over every lane of the warp: it exchanges
// values and orders no memory.
type Ballot struct{}

// run votes with every lane of the warp.
func (Ballot) run(t *gpu.Thread, _ *mem) { gpu.BallotSync(t, lanes(t), true) }

// String prints the ballot.
func (Ballot) String() string { return "__ballot_sync(__activemask(), 1)" }

// A Lock is a critical section: acquire lock word l[Lock] by spinning on
// atomicCAS or atomicExch of scope Scope, optionally fence, run Body, and
// release by atomicExch or a release store.
type Lock struct {
	Who     Guard
	Lock    int
	Scope   scope.Scope
	Exch    bool // acquire with atomicExch rather than atomicCAS
	Fence   bool // a fence of the lock's scope after acquiring and before releasing
	Release bool // release with a release store rather than atomicExch
	Body    []Access
}

// run takes the lock, runs the body and releases, if t passes the guard.
func (l Lock) run(t *gpu.Thread, m *mem) {
	if !l.Who.has(t.Block(), t.Rank()) {
		return
	}
	w := lockBase + l.Lock
	for m.do(t, Global, w, l.acquireOp(), gpu.Relaxed, l.Scope, 1, 0) != 0 {
	}
	l.fence(t)
	for _, a := range l.Body {
		a.do(t, m)
	}
	l.fence(t)
	if l.Release {
		m.do(t, Global, w, Store, gpu.Release, l.Scope, 0, 0)
	} else {
		m.do(t, Global, w, Exch, gpu.Relaxed, l.Scope, 0, 0)
	}
}

// acquireOp is the operation that takes the lock.
func (l Lock) acquireOp() Op {
	if l.Exch {
		return Exch
	}
	return CAS
}

// fence fences at the lock's scope if the lock fences.
func (l Lock) fence(t *gpu.Thread) {
	if l.Fence {
		t.Fence(l.Scope)
	}
}

// String prints the lock statement on one line.
func (l Lock) String() string {
	lw := fmt.Sprintf("l[%d]", l.Lock)
	acquire := fmt.Sprintf("while (atomicCAS.%v(&%s, 0, 1) != 0) {}", l.Scope, lw)
	if l.Exch {
		acquire = fmt.Sprintf("while (atomicExch.%v(&%s, 1) != 0) {}", l.Scope, lw)
	}
	return guarded(l.Who, fmt.Sprintf("lock: %s { %s }", acquire, strings.Join(l.body(lw), "; ")))
}

// body prints the critical section and the release of lock word lw.
func (l Lock) body(lw string) []string {
	var body []string
	if l.Fence {
		body = append(body, fenceText(l.Scope))
	}
	for _, a := range l.Body {
		body = append(body, a.text())
	}
	if l.Fence {
		body = append(body, fenceText(l.Scope))
	}
	if l.Release {
		return append(body, fmt.Sprintf("release.%v %s = 0", l.Scope, lw))
	}
	return append(body, fmt.Sprintf("atomicExch.%v(&%s, 0)", l.Scope, lw))
}

// TileSync is cg::tiled_partition(this_thread_block(), Size).sync(), run
// by every thread: a barrier of each tile of Size consecutive ranks.
type TileSync struct{ Size int }

// run waits at t's tile's barrier.
func (s TileSync) run(t *gpu.Thread, _ *mem) { gpu.TiledPartition(t, s.Size).Sync() }

// String prints the tile sync.
func (s TileSync) String() string { return fmt.Sprintf("tiled_partition(block, %d).sync()", s.Size) }
