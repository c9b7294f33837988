package race

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// An entry's lock is the seam where the locking disciplines of [Locking]
// plug in without touching the checks: LockSpin's word is the entry's
// first field, LockMutex's mutex lives in the entry's extra (so that an
// entry stays two cache lines under the default discipline), and
// LockStriped's in a table shared by entries. Locking per entry is the
// finest sharding possible: two checks contend only when they touch the
// same granule, which is a race candidate anyway.

// stripes is LockStriped's table of mutexes, each on its own cache line.
type stripes [stripeCount]struct {
	mu sync.Mutex
	_  [64 - unsafe.Sizeof(sync.Mutex{})]byte
}

const stripeCount = 1024

// lockNone locks nothing, for the central checker, which alone touches
// the metadata.
const lockNone Locking = 255

// locker locks entries by one discipline for one launch.
type locker struct {
	kind    Locking
	backoff bool     // LockSpin backs off on contention
	cap     int      // the most spins of one backoff step
	stripes *stripes // LockStriped's table
}

// newLocker returns the locker of a launch with warps warps resident
// at once, locking stripes with LockStriped.
func newLocker(o Options, warps int, st *stripes) locker {
	return locker{kind: o.Lock, backoff: !o.NoBackoff, cap: backoffCap(warps), stripes: st}
}

// lock locks e, whose extra is x, for th, counting the acquisition, and
// whether and how long th waited.
func (l *locker) lock(th *thread, e *entry, x *extra) {
	th.n.locks++
	switch l.kind {
	case lockNone:
	case LockMutex:
		if !x.mu.TryLock() {
			th.n.contended++
			x.mu.Lock()
		}
	case LockStriped:
		m := &l.stripes[uintptr(unsafe.Pointer(e))/unsafe.Sizeof(entry{})%stripeCount].mu
		if !m.TryLock() {
			th.n.contended++
			m.Lock()
		}
	default:
		if !e.spin.CompareAndSwap(0, 1) {
			l.contend(th, &e.spin)
		}
	}
}

// unlock unlocks e, whose extra is x.
func (l *locker) unlock(e *entry, x *extra) {
	switch l.kind {
	case lockNone:
	case LockMutex:
		x.mu.Unlock()
	case LockStriped:
		l.stripes[uintptr(unsafe.Pointer(e))/unsafe.Sizeof(entry{})%stripeCount].mu.Unlock()
	default:
		e.spin.Store(0)
	}
}

// contend acquires a held spinlock: tightly, as iGUARD's CONT_OPT=0 does,
// reading the word until it is free and racing for it, or with backoff.
//
//go:noinline
func (l *locker) contend(th *thread, s *atomic.Uint32) {
	th.n.contended++
	if !l.backoff {
		for s.Load() != 0 || !s.CompareAndSwap(0, 1) {
		}
		return
	}
	start := time.Now()
	for delay, n := backoffBase, 0; s.Load() != 0 || !s.CompareAndSwap(0, 1); delay, n = min(2*delay, l.cap), n+1 {
		th.n.waits++
		wait(delay, l.cap, n)
	}
	th.n.waitNs += uint64(time.Since(start))
}
