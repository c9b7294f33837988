package gpu

import (
	"unsafe"

	"github.com/warpguard/warpguard/scope"
)

// The atomic read-modify-writes below are CUDA's atomicX functions with an
// explicit scope: scope.Block is atomicX_block, scope.Device plain atomicX,
// scope.System atomicX_system. Each returns the element's old value. They
// are relaxed: they order no other access; pair them with fences, or use
// acquire and release operations, to publish data.
//
// An RMW is atomic only among threads its scope covers. The emulator
// performs every RMW with a Go atomic, so the value is never torn; package
// race reports an RMW whose scope does not cover another thread using the
// same element.

// AtomicAdd adds v to element i, wrapping on integer overflow as CUDA does.
func (b Buffer[T]) AtomicAdd(t *Thread, i int, v T, s scope.Scope) T {
	if isFloat[T]() {
		return b.rmw(t, i, OpAdd, v, s)
	}
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, OpAdd, s))
	}
	var old uint64
	if t.obs != nil {
		old = b.observed(t, i, p, OpAdd, Relaxed, s, toBits(v), 0)
	} else {
		old = addBits[T](p, toBits(v))
	}
	if toBits(v) != 0 { // atomicAdd(p, 0) is a strong read
		t.progress = true
	}
	b.strong(t, i, OpAdd)
	return fromBits[T](old)
}

// AtomicSub subtracts v from element i, wrapping on integer overflow.
func (b Buffer[T]) AtomicSub(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpSub, v, s)
}

// AtomicExch stores v into element i.
func (b Buffer[T]) AtomicExch(t *Thread, i int, v T, s scope.Scope) T {
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, OpExch, s))
	}
	var old uint64
	if t.obs != nil {
		old = b.observed(t, i, p, OpExch, Relaxed, s, toBits(v), 0)
	} else {
		old = swapBits[T](p, toBits(v))
	}
	if old != toBits(v) {
		t.progress = true
	}
	b.strong(t, i, OpExch)
	return fromBits[T](old)
}

// AtomicCAS stores v into element i if the element's bits equal cmp's bits,
// as atomicCAS compares (so for floats -0 and +0 differ and NaN can match).
// It returns the old value; the swap happened if that equals cmp.
func (b Buffer[T]) AtomicCAS(t *Thread, i int, cmp, v T, s scope.Scope) T {
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, OpCAS, s))
	}
	c, n := toBits(cmp), toBits(v)
	var old uint64
	if t.obs != nil {
		old = b.observed(t, i, p, OpCAS, Relaxed, s, n, c)
	} else {
		old = casLoop[T](p, c, n)
	}
	if old != c {
		t.failedCAS(p)
	} else if n != c {
		t.progress = true
	}
	b.strong(t, i, OpCAS)
	return fromBits[T](old)
}

// failedCAS notes a CAS that failed at p. A thread whose CAS fails again
// at the address of its last failure is most likely spinning on a lock,
// and if the holder is a thread of its own block, which on the Fibers
// executor yielded inside its critical section, every waiter of the
// block would otherwise spin spinYield times before the holder runs
// again: such a failure counts spinYield/2, so the waiter yields at its
// second repeated failure. Failures at new addresses (a hash table
// probing for a free slot) count one, as any strong access: a prober makes
// progress, and weighting its failures would only add yields.
func (t *Thread) failedCAS(p unsafe.Pointer) {
	if uint32(uintptr(p)) == t.lastFail {
		t.spins += failedCASWeight
	}
	t.lastFail = uint32(uintptr(p))
}

// failedCASWeight is what a repeated failed CAS adds to the thread's spin
// count besides its own one: with it, the failure counts spinYield/2.
const failedCASWeight = spinYield/2 - 1

// AtomicMin stores min(element, v) into element i, as libcu++'s fetch_min
// does: v if v < element, so a NaN element stays and a NaN v is not
// stored.
func (b Buffer[T]) AtomicMin(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpMin, v, s)
}

// AtomicMax stores max(element, v) into element i, as libcu++'s fetch_max
// does: v if element < v, so a NaN element stays and a NaN v is not
// stored.
func (b Buffer[T]) AtomicMax(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpMax, v, s)
}

// AtomicAnd stores element & v into element i. Integer buffers only: on a
// floating-point buffer it fails the thread, as CUDA has no float atomicAnd.
func (b Buffer[T]) AtomicAnd(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpAnd, v, s)
}

// AtomicOr stores element | v into element i. Integer buffers only.
func (b Buffer[T]) AtomicOr(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpOr, v, s)
}

// AtomicXor stores element ^ v into element i. Integer buffers only.
func (b Buffer[T]) AtomicXor(t *Thread, i int, v T, s scope.Scope) T {
	return b.rmw(t, i, OpXor, v, s)
}

// AtomicInc stores (old >= limit) ? 0 : old+1 into element i, CUDA's
// atomicInc: a counter that wraps to 0 after limit. Integer buffers only;
// the comparison is unsigned, as CUDA defines atomicInc on unsigned int.
func (b Buffer[T]) AtomicInc(t *Thread, i int, limit T, s scope.Scope) T {
	return b.rmw(t, i, OpInc, limit, s)
}

// AtomicDec stores (old == 0 || old > limit) ? limit : old-1 into element
// i, CUDA's atomicDec. Integer buffers only; the comparison is unsigned.
func (b Buffer[T]) AtomicDec(t *Thread, i int, limit T, s scope.Scope) T {
	return b.rmw(t, i, OpDec, limit, s)
}

// rmw performs op with a compare-and-swap loop.
func (b Buffer[T]) rmw(t *Thread, i int, op Op, v T, s scope.Scope) T {
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, op, s))
	}
	if op >= OpAnd && isFloat[T]() {
		t.failf("%v is not defined on %v buffer %q", op, b.m.Type, b.m.Name)
	}
	var old uint64
	if t.obs != nil {
		old = b.observed(t, i, p, op, Relaxed, s, toBits(v), 0)
	} else {
		old = rmwLoop[T](p, op, toBits(v))
	}
	b.changed(t, op, old, toBits(v))
	b.strong(t, i, op)
	return fromBits[T](old)
}

// changed notes that RMW op with operand arg, which found old, changed
// the element, if it did: the thread made progress.
func (b Buffer[T]) changed(t *Thread, op Op, old, arg uint64) {
	if !unchanged[T](op, old, arg) {
		t.progress = true
	}
}

// unchanged reports whether RMW op (not a CAS) with operand arg, which
// found old, left the element as it was: an exchange of the same value,
// an add of 0, an or of 0, a max of less.
func unchanged[T Elem](op Op, old, arg uint64) bool {
	if op == OpExch {
		return arg == old
	}
	return toBits(apply(op, fromBits[T](old), fromBits[T](arg))) == old
}

// apply computes the new value of an RMW from the old value and operand;
// on Halves, as floats (applyHalf).
func apply[T Elem](op Op, old, v T) T {
	if isHalf[T]() {
		return halfOp(op, old, v)
	}
	switch op {
	case OpAdd:
		return old + v
	case OpSub:
		return old - v
	case OpMin:
		return lesser(old, v)
	case OpMax:
		return greater(old, v)
	case OpAnd:
		return fromBits[T](toBits(old) & toBits(v))
	case OpOr:
		return fromBits[T](toBits(old) | toBits(v))
	case OpXor:
		return fromBits[T](toBits(old) ^ toBits(v))
	case OpInc, OpDec:
		return fromBits[T](incDec(op, toBits(old), toBits(v)))
	}
	panic("gpu: apply of " + op.String())
}

// lesser is cuda::std::min(old, v), which libcu++'s fetch_min stores: v
// if v < old, else old. It differs from Go's min only with a NaN, which
// compares false: the element's NaN stays, and a NaN operand is not
// taken.
func lesser[T Elem](old, v T) T {
	if v < old {
		return v
	}
	return old
}

// greater is cuda::std::max(old, v), fetch_max's: v if old < v, else old.
func greater[T Elem](old, v T) T {
	if old < v {
		return v
	}
	return old
}

// incDec computes atomicInc and atomicDec on raw bits. CUDA defines them
// on unsigned int, so the comparisons are unsigned whatever T is: on an
// int32 buffer, -1 is 0xffffffff, above any limit. Bits are zero-extended,
// and fromBits drops the carry of a 4-byte element.
func incDec(op Op, old, limit uint64) uint64 {
	if op == OpInc {
		if old >= limit {
			return 0
		}
		return old + 1
	}
	if old == 0 || old > limit {
		return limit
	}
	return old - 1
}
