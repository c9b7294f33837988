package gen

import (
	"fmt"

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
	Who   Guard       // the threads that access
	Space Space       // global data words x or shared words s
	At    Index       // the word each thread accesses
	Op    Op          // load, store or read-modify-write
	Order gpu.Order   // Weak, Volatile, Relaxed or SeqCst; Acquire for loads, Release for stores; any atomic order for RMWs
	Scope scope.Scope // of atomics, acquire loads and release stores
}

// run performs the access if t passes the guard.
func (a Access) run(t *gpu.Thread, m *mem) {
	if a.Who.has(t.BlockRank(), t.ThreadRank()) {
		a.do(t, m)
	}
}

// do performs the access unguarded.
func (a Access) do(t *gpu.Thread, m *mem) {
	v := uint32(t.GlobalID() + 1)
	m.do(t, a.Space, a.At.of(t.ThreadRank()), a.Op, a.Order, a.Scope, v, 0)
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
		return fmt.Sprintf("atomicAdd.%s(&%s, 1)", rmwText(o, s), w)
	case Exch:
		return fmt.Sprintf("atomicExch.%s(&%s, gid+1)", rmwText(o, s), w)
	}
	return fmt.Sprintf("atomicCAS.%s(&%s, 0, gid+1)", rmwText(o, s), w)
}

// rmwText names a read-modify-write's scope, and its order unless
// relaxed: "device", "acq_rel.block".
func rmwText(o gpu.Order, s scope.Scope) string {
	if o == gpu.Relaxed {
		return s.String()
	}
	return fmt.Sprintf("%v.%v", o, s)
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
	Who   Guard       // the threads that fence
	Scope scope.Scope // the fence's scope
	Order gpu.Order   // gpu.SeqCst: fence.sc, as __threadfence; gpu.AcqRel: fence.acq_rel
}

// run fences if t passes the guard.
func (f Fence) run(t *gpu.Thread, _ *mem) {
	if !f.Who.has(t.BlockRank(), t.ThreadRank()) {
		return
	}
	if f.Order == gpu.AcqRel {
		t.FenceAcqRel(f.Scope)
	} else {
		t.Fence(f.Scope)
	}
}

// String prints the fence, with its guard.
func (f Fence) String() string {
	if f.Order == gpu.AcqRel {
		return guarded(f.Who, fmt.Sprintf("atomic_thread_fence(acq_rel, %v)", f.Scope))
	}
	return guarded(f.Who, fenceText(f.Scope))
}

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
