package race

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// fill sets r to th's record of access a. It fills in place: returning a
// record, which holds pointers, costs three times as much.
func (th *thread) fill(r *record, a *gpu.Access) {
	r.th = th
	r.seq = th.seq.Load()
	r.bar = th.blk.bar.Load()
	r.wep = th.w.epoch(th.lane)
	r.grid = th.l.grid.Load()
	r.tile = th.tileN.Load()
	r.op, r.order, r.scope = a.Op, a.Order, a.Scope
	r.strong = isStrong(a)
}

// stamp summarizes r for the entry's repeat test: the thread, the
// operation, and a sum of every counter the record holds (its fence seq
// counts every fence that could order anything) and of the
// versions of the thread's lock tables. The counters only grow, so the sum
// changes whenever one of them does. Threads from 2^21-1 on get no stamp (0),
// so that no stamp has its top bit set (see locked).
func (r *record) stamp() uint64 {
	gen := r.seq + r.bar + r.wep + r.grid + r.tile
	return r.th.stampOf(gen, r.op, r.order, r.scope)
}

// stampNow returns the stamp th's record of access a would have, without
// filling the record: the repeat test is the common path.
func (th *thread) stampNow(a *gpu.Access) uint64 {
	gen := th.seq.Load() + th.blk.bar.Load() +
		th.w.epoch(th.lane) + th.l.grid.Load() + th.tileN.Load()
	return th.stampOf(gen, a.Op, a.Order, a.Scope)
}

// stampOf completes a stamp from the sum of a record's counters.
func (th *thread) stampOf(gen uint32, op gpu.Op, order gpu.Order, s scope.Scope) uint64 {
	if th.gid >= 1<<21-1 {
		return 0
	}
	gen += th.locks.ver.Load() + th.w.table.ver.Load()
	class := uint64(op)<<5 | uint64(order)<<3 | uint64(s)
	return uint64(th.gid+1)<<42 | class<<32 | uint64(gen)
}

// isStrong reports whether a is an atomic access in the sense of the scope
// rules: a read-modify-write, an acquire or release, a relaxed atomic load
// or store, or a volatile load. Volatile stores count as plain data, as in ScoR's
// labels, where a volatile store against an atomic is a race (PTX would
// call the pair morally strong). Volatile loads count as strong because
// spinning on a flag with a volatile load is CUDA's idiom (CUB's grid
// barrier, cooperative groups); iGUARD flags such a poll as a missing fence
// whenever the flag's atomic writer has not fenced since.
func isStrong(a *gpu.Access) bool {
	switch {
	case a.Op.IsRMW() || a.Order >= gpu.Acquire:
		return true
	case a.Order == gpu.Relaxed:
		return true
	case a.Order == gpu.Volatile:
		return a.Op == gpu.OpLoad
	}
	return false
}
