package iguard

import (
	"sync"
	"time"
	"unsafe"
)

// An entry's lock is the seam where the locking disciplines of [Locking]
// plug in without touching the checks: LockSpin's word is the entry's
// first field, LockMutex's mutex lives in the entry's extra (so that an
// entry stays one cache line under the default discipline), and
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
func newLocker(o Config, warps int, st *stripes) locker {
	return locker{kind: o.Lock, backoff: !o.NoBackoff, cap: backoffCap(warps), stripes: st}
}

// lock locks e, whose extra is x, for th, counting the acquisition, and
// whether and how long th waited. Under LockSpin the lock is the entry's
// word, which holds the last update's stamp when free: taking it is one
// exchange, and releasing it stores the new stamp, so a check makes two
// atomic writes to the entry's first line where a lock word beside the
// stamp would make three.
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
		if e.word.Swap(locked) == locked {
			l.contend(th, &e.word)
		}
		return
	}
	// As under LockSpin, no stamp matches the word during an update, so a
	// repeat test cannot pair the last update's stamp with the call path
	// this one is about to store.
	e.word.Store(0)
}

// unlock stores stamp, the stamp of the update just made, in e and
// unlocks e, whose extra is x.
func (l *locker) unlock(e *entry, x *extra, st stamp) {
	e.word.Store(st) // under LockSpin, the store is the unlock
	switch l.kind {
	case LockMutex:
		x.mu.Unlock()
	case LockStriped:
		l.stripes[uintptr(unsafe.Pointer(e))/unsafe.Sizeof(entry{})%stripeCount].mu.Unlock()
	}
}

// contend acquires a held spinlock: tightly, as iGUARD's CONT_OPT=0 does,
// reading the word until it is free and racing for it, or with backoff.
//
//go:noinline
func (l *locker) contend(th *thread, w *stampWord) {
	th.n.contended++
	if !l.backoff {
		for !tryLock(w) {
		}
		return
	}
	start := time.Now()
	for delay, n := backoffBase, 0; !tryLock(w); delay, n = min(2*delay, l.cap), n+1 {
		th.n.waits++
		wait(delay, l.cap, n)
	}
	th.n.waitNs += uint64(time.Since(start))
}

// tryLock takes the spinlock w if it is free: it reads the word first,
// so that waiters share its line until the holder stores.
func tryLock(w *stampWord) bool {
	v := w.Load()
	return v != locked && w.CompareAndSwap(v, locked)
}

// Locking is a discipline for locking one metadata entry, as
// race.Locking names them: the Detector maps its Options.Lock here.
type Locking uint8

// The locking disciplines, as race.Locking documents them.
const (
	LockSpin    Locking = iota // a spinlock in the entry's stamp word
	LockMutex                  // a sync.Mutex per granule, in the entry's extra
	LockStriped                // a table of striped mutexes, by the entry's address
)
