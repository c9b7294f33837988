package gpu

import (
	"unsafe"

	"github.com/warpguard/warpguard/scope"
)

// observed performs op, of order o and scope s, on element i at p and
// reports it to t's observer: under the element's sequencing mutexes when
// an observer sequences it (see Sequencer), a release or seq_cst store
// before its value reaches memory, any other access after. A releasing
// read-modify-write is reported after too, since its report carries the
// value it read; an observer that sequences reports it before any other
// thread's strong access of the element, as the mutex is held. It returns the element's
// old value: what a load or read-modify-write read. An observer's panic
// (a halt) unlocks the mutexes on its way out.
//
//go:noinline
func (b Buffer[T]) observed(t *Thread, i int, p unsafe.Pointer, op Op, o Order, s scope.Scope, arg, cmp uint64) uint64 {
	q := t.seq
	held := q != nil && sequenced(op, o)
	if held {
		x, y := q.lock(b.m, b.lo+i)
		defer unlock(x, y)
	}
	early := op == OpStore && o.Releases()
	var old uint64
	if !early {
		old = perform[T](p, op, arg, cmp)
	}
	b.fill(&t.acc, i, op, o, s, old, arg, cmp, held)
	t.obs.Access(t, &t.acc)
	if polls(op, o) {
		b.notePoll(t, i, op, old, arg)
	} else {
		t.pollAt = 0 // any other access ends a run of polls
	}
	if early {
		perform[T](p, op, arg, cmp)
	}
	return old
}

// perform performs op on the element at p and returns its old value (0
// for a store).
func perform[T Elem](p unsafe.Pointer, op Op, arg, cmp uint64) uint64 {
	switch op {
	case OpLoad:
		return loadBits[T](p)
	case OpStore:
		storeBits[T](p, arg)
		return 0
	case OpExch:
		return swapBits[T](p, arg)
	case OpCAS:
		return casLoop[T](p, cmp, arg)
	case OpAdd:
		if !isFloat[T]() {
			return addBits[T](p, arg)
		}
	}
	return rmwLoop[T](p, op, arg)
}

// casLoop is atomicCAS on the element at p: it stores n if the element's
// bits are c, and returns the bits it found. A compare-and-swap that
// fails while the element still holds c (a torn read cannot happen, but
// a concurrent CAS of c to c can) retries.
func casLoop[T Elem](p unsafe.Pointer, c, n uint64) uint64 {
	for !casBits[T](p, c, n) {
		if old := loadBits[T](p); old != c {
			return old
		}
	}
	return c
}

// rmwLoop applies read-modify-write op with operand arg to the element at
// p with a compare-and-swap loop, and returns the old bits.
func rmwLoop[T Elem](p unsafe.Pointer, op Op, arg uint64) uint64 {
	for {
		old := loadBits[T](p)
		n := toBits(apply(op, fromBits[T](old), fromBits[T](arg)))
		if casBits[T](p, old, n) {
			return old
		}
	}
}
