package gen

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Space is where an access goes: the global data words or the block's
// shared words.
type Space uint8

// The spaces.
const (
	Global Space = iota
	Shared
)

// Op is the operation of a generated access.
type Op uint8

// The operations.
const (
	Load Op = iota
	Store
	Add  // atomicAdd(1)
	Exch // atomicExch(gid+1)
	CAS  // atomicCAS(0, gid+1)
)

// mem is one thread's view of a kernel's memory.
type mem struct {
	g, s gpu.Buffer[uint32]
	k    *Kernel
}

// slot returns the source-line slot of word i of the space, as seen by a
// thread of block b.
func slot(sp Space, i, b int) int {
	if sp == Shared {
		return globalWords + sharedWords*b + i
	}
	return i
}

// do performs op with order o and scope s on word i of the space, writing
// v (comparing with cmp for CAS), and returns the value read.
func (m *mem) do(t *gpu.Thread, sp Space, i int, op Op, o gpu.Order, s scope.Scope, v, cmp uint32) uint32 {
	b, n := m.g, slot(sp, i, t.BlockRank())
	if sp == Shared {
		b = m.s
	}
	switch op {
	case Load:
		return loadOp(o)(b, t, n, i, v, cmp, s, o)
	case Store:
		return storeOp(o)(b, t, n, i, v, cmp, s, o)
	case Add:
		return rmwOp(o, atomicAdd, fetchAdd)(b, t, n, i, 1, cmp, s, o)
	case Exch:
		return rmwOp(o, atomicExch, exchange)(b, t, n, i, v, cmp, s, o)
	}
	return rmwOp(o, atomicCAS, compareExchange)(b, t, n, i, v, cmp, s, o)
}

// accessFunc is the shape of the functions of sites.go.
type accessFunc = func(b gpu.Buffer[uint32], t *gpu.Thread, slot, i int, v, cmp uint32, s scope.Scope, o gpu.Order) uint32

// rmwOp returns relaxed, CUDA's atomicX, for a relaxed read-modify-write,
// and ordered, a gpu.Ref operation, for one of another order.
func rmwOp(o gpu.Order, relaxed, ordered accessFunc) accessFunc {
	if o == gpu.Relaxed {
		return relaxed
	}
	return ordered
}

// old returns the old value of a CompareExchange.
func old(v uint32, _ bool) uint32 { return v }

// loadOp returns the load function of order o.
func loadOp(o gpu.Order) accessFunc {
	switch o {
	case gpu.Volatile:
		return loadVolatile
	case gpu.Relaxed:
		return atomicLoad
	case gpu.Acquire:
		return loadAcquire
	case gpu.SeqCst:
		return loadOrdered
	}
	return load
}

// storeOp returns the store function of order o.
func storeOp(o gpu.Order) accessFunc {
	switch o {
	case gpu.Volatile:
		return storeVolatile
	case gpu.Relaxed:
		return atomicStore
	case gpu.Release:
		return storeRelease
	case gpu.SeqCst:
		return storeOrdered
	}
	return store
}
