package iguard

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// fill sets r to th's record of access a. It fills in place: returning a
// record, which holds pointers, costs three times as much.
func (th *thread) fill(r *record, a *gpu.Access) {
	r.tid = th.gid + 1
	r.seq = th.seq.Load()
	r.bar = th.blk.bar.Load()
	r.wep = th.w.epoch(th.lane)
	r.grid = th.l.grid.Load()
	r.tile = th.tileN.Load()
	r.op, r.order, r.scope = a.Op, a.Order, a.Scope
	r.strong = isStrong(a)
}

// A stamp summarizes an access for the repeat test, in the one word a
// metadata entry or a first-record slot holds: two accesses have equal
// stamps only when the second is the same thread's same kind of access
// with no synchronization between them. Its layout, defined here only:
//
//	bit  63      the lock bit: set only in locked, never in a stamp
//	bits 42..62  the thread's global id plus one; 0 is no stamp
//	bits 32..41  the access's class: op, order and scope (classOf)
//	bits  0..31  the generation: a sum of the thread's counters
//
// Threads from stampThreads on get no stamp, so that the thread field
// never reaches the lock bit.
type stamp uint64

// The stamp's layout.
const (
	stampGenBits     = 32
	stampClassBits   = 10
	stampThreadShift = stampGenBits + stampClassBits
	stampThreads     = 1<<(63-stampThreadShift) - 1

	// locked is the value of an entry's word while LockSpin holds it.
	locked stamp = 1 << 63
)

// newStamp packs a stamp; gid must be below stampThreads.
func newStamp(gid int, class uint64, gen uint32) stamp {
	return stamp(uint64(gid+1)<<stampThreadShift | class<<stampGenBits | uint64(gen))
}

// classOf packs an access's op, order and scope into a stamp's class
// field: the scope in bits 0..2, the order in 3..5, the op in 6..9.
func classOf(op gpu.Op, order gpu.Order, s scope.Scope) uint64 {
	return uint64(op)<<6 | uint64(order)<<3 | uint64(s)
}

// classParts returns the op, order and scope of class c, the low
// stampClassBits of c (see classOf).
func classParts(c uint64) (gpu.Op, gpu.Order, scope.Scope) {
	return gpu.Op(c >> 6 & 15), gpu.Order(c >> 3 & 7), scope.Scope(c & 7)
}

// thread returns the global id of the thread st belongs to; -1 for no
// stamp.
func (st stamp) thread() int { return int(st>>stampThreadShift) - 1 }

// gen returns st's generation.
func (st stamp) gen() uint32 { return uint32(st) }

// A stampWord is a word of metadata holding a stamp, read and written
// atomically.
type stampWord struct{ v atomic.Uint64 }

// Load atomically loads the stamp.
func (w *stampWord) Load() stamp { return stamp(w.v.Load()) }

// Store atomically stores st.
func (w *stampWord) Store(st stamp) { w.v.Store(uint64(st)) }

// Swap atomically stores st and returns the previous stamp.
func (w *stampWord) Swap(st stamp) stamp { return stamp(w.v.Swap(uint64(st))) }

// CompareAndSwap atomically replaces old with st, reporting whether it did.
func (w *stampWord) CompareAndSwap(old, st stamp) bool {
	return w.v.CompareAndSwap(uint64(old), uint64(st))
}

// stamp summarizes c for the entry's repeat test: the thread, the
// operation, and a sum of every counter its record holds (its fence seq
// counts every fence that could order anything) and of the versions of
// the thread's lock tables. The counters only grow, so the sum changes
// whenever one of them does.
func (c *access) stamp() stamp {
	th, r := c.th, &c.rec
	gen := r.seq + r.bar + r.wep + r.grid + r.tile + th.locks.ver.Load() + th.w.table.ver.Load()
	return th.stampOf(gen, r.op, r.order, r.scope)
}

// stamps returns the stamp th's record of access a would have, without
// filling the record (the repeat test is the common path), and a's first
// in layout l, made at the call path of handle h (see first.go), or 0
// when a first cannot hold th's state or h.
func (th *thread) stamps(a *gpu.Access, l *firstLayout, h uint32) (stamp, first) {
	seq, bar, wep, grid, tile := th.seq.Load(), th.blk.bar.Load(), th.w.epoch(th.lane), th.l.grid.Load(), th.tileN.Load()
	lv, wv := th.locks.ver.Load(), th.w.table.ver.Load()
	st := th.stampOf(seq+bar+wep+grid+tile+lv+wv, a.Op, a.Order, a.Scope)
	if wep|grid|tile|lv|wv != 0 {
		return st, 0
	}
	if l.handleBits == 0 && h == 0 {
		return st, packPlain(th.gid, a, seq, bar) // pack's case without history, inlined
	}
	return st, l.pack(th.gid, a, seq, bar, h)
}

// stampOf completes a stamp from the sum of a record's counters and of
// th's lock tables' versions.
func (th *thread) stampOf(gen uint32, op gpu.Op, order gpu.Order, s scope.Scope) stamp {
	if th.gid >= stampThreads {
		return 0
	}
	return newStamp(th.gid, classOf(op, order, s), gen)
}

// isStrong reports whether a is an atomic access in the sense of the scope
// rules: a read-modify-write, an acquire or release, a relaxed atomic load
// or store, or a volatile load. Volatile stores count as plain data, as in ScoR's
// labels, where a volatile store against an atomic is a race (PTX would
// call the pair morally strong). Volatile loads count as strong because
// spinning on a flag with a volatile load is CUDA's idiom (CUB's grid
// barrier, cooperative groups); iGUARD flags such a poll as a missing fence
// whenever the flag's atomic writer has not fenced since.
func isStrong(a *gpu.Access) bool { return strongOp(a.Op, a.Order) }

// strongOp is isStrong for an access of op and order.
func strongOp(op gpu.Op, order gpu.Order) bool {
	switch {
	case op.IsRMW() || order >= gpu.Acquire:
		return true
	case order == gpu.Relaxed:
		return true
	case order == gpu.Volatile:
		return op == gpu.OpLoad
	}
	return false
}
