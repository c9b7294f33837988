package gpu

import (
	"unsafe"

	"github.com/warpguard/warpguard/scope"
)

// A Ref is element i of a buffer seen as an atomic object of scope s by
// thread t: libcu++'s cuda::atomic_ref<T, s>, whose every operation takes
// a memory order. It is a small value, made for free by [Buffer.Ref] and
// held in a variable for a kernel's lifetime, so that
//
//	cuda::atomic_ref<int, cuda::thread_scope_device> l(lock[0]);
//	while (l.exchange(1, cuda::memory_order_acquire)) ;
//
// reads
//
//	l := lock.Ref(t, 0, scope.Device)
//	for l.Exchange(1, gpu.Acquire) != 0 {
//	}
//
// Every operation checks its index and scope as the Buffer methods do
// and fails the thread on an order C++ does not allow for it (a release
// load, an acquire store). The orders mean what they mean in C++ and
// PTX, at scope s: in the terminology of [the Go memory model], an
// operation that releases (Release, AcqRel, SeqCst) and writes a value
// "synchronizes before" an operation that acquires (Acquire, AcqRel,
// SeqCst) and reads that value, or a value a later read-modify-write of
// the element wrote (its release sequence), when each one's scope covers
// both threads; a relaxed read followed by a fence, and a fence followed
// by a relaxed write, acquire and release as [Thread.FenceAcqRel] says.
// A SeqCst operation is [Thread.Fence] (fence.sc) at scope s followed by
// the operation with acquire, release or acq_rel order. Relaxed orders
// nothing. The emulator performs every operation with a sequentially
// consistent Go atomic, so it never shows a weaker outcome; package race
// reports a kernel that relies on an order or scope too weak.
//
// Buffer's AtomicAdd and friends are the relaxed operations, as CUDA's
// atomicAdd is; a Ref costs what they cost, plus the order's check.
//
// [the Go memory model]: https://go.dev/ref/mem
type Ref[T Elem] struct {
	b Buffer[T]
	t *Thread
	i int
	s scope.Scope
}

// Ref returns element i as an atomic object of scope s for thread t. The
// index and scope are checked by each operation, not here.
func (b Buffer[T]) Ref(t *Thread, i int, s scope.Scope) Ref[T] {
	return Ref[T]{b: b, t: t, i: i, s: s}
}

// Load returns the element, read with order o: Relaxed, Acquire or
// SeqCst.
func (r Ref[T]) Load(o Order) T {
	p := r.at(OpLoad, o)
	if o == SeqCst {
		r.t.fence(r.s, SeqCst)
	}
	var v uint64
	if r.t.obs != nil {
		v = r.b.observed(r.t, r.i, p, OpLoad, o, r.s, 0, 0)
	} else {
		v = loadBits[T](p)
	}
	r.b.strong(r.t, r.i, OpLoad)
	return fromBits[T](v)
}

// Store sets the element to v with order o: Relaxed, Release or SeqCst.
func (r Ref[T]) Store(v T, o Order) {
	p := r.at(OpStore, o)
	if o == SeqCst {
		r.t.fence(r.s, SeqCst)
	}
	if r.t.obs != nil {
		r.b.observed(r.t, r.i, p, OpStore, o, r.s, toBits(v), 0)
	} else {
		storeBits[T](p, toBits(v))
	}
	r.t.progress = true
	r.b.strong(r.t, r.i, OpStore)
}

// Exchange stores v and returns the old value, with order o.
func (r Ref[T]) Exchange(v T, o Order) T { return r.rmw(OpExch, v, o) }

// CompareExchange stores v if the element's bits equal cmp's, as
// [Buffer.AtomicCAS] compares, with order o, and returns the old value and
// whether it swapped: compare_exchange_strong. A failed exchange wrote
// nothing and so releases nothing; it acquires, as C++'s does with o's
// failure order, when o acquires.
func (r Ref[T]) CompareExchange(cmp, v T, o Order) (old T, swapped bool) {
	p := r.at(OpCAS, o)
	if o == SeqCst {
		r.t.fence(r.s, SeqCst)
	}
	c, n := toBits(cmp), toBits(v)
	var ob uint64
	if r.t.obs != nil {
		ob = r.b.observed(r.t, r.i, p, OpCAS, o, r.s, n, c)
	} else {
		ob = casLoop[T](p, c, n)
	}
	if ob != c {
		r.t.failedCAS(p)
	} else if n != c {
		r.t.progress = true
	}
	r.b.strong(r.t, r.i, OpCAS)
	return fromBits[T](ob), ob == c
}

// FetchAdd adds v, wrapping on integer overflow, and returns the old
// value, with order o.
func (r Ref[T]) FetchAdd(v T, o Order) T { return r.rmw(OpAdd, v, o) }

// FetchSub subtracts v and returns the old value, with order o.
func (r Ref[T]) FetchSub(v T, o Order) T { return r.rmw(OpSub, v, o) }

// FetchMin stores min(element, v) and returns the old value, with order o.
func (r Ref[T]) FetchMin(v T, o Order) T { return r.rmw(OpMin, v, o) }

// FetchMax stores max(element, v) and returns the old value, with order o.
func (r Ref[T]) FetchMax(v T, o Order) T { return r.rmw(OpMax, v, o) }

// FetchAnd stores element & v and returns the old value, with order o.
// Integer buffers only.
func (r Ref[T]) FetchAnd(v T, o Order) T { return r.rmw(OpAnd, v, o) }

// FetchOr stores element | v and returns the old value, with order o.
// Integer buffers only.
func (r Ref[T]) FetchOr(v T, o Order) T { return r.rmw(OpOr, v, o) }

// FetchXor stores element ^ v and returns the old value, with order o.
// Integer buffers only.
func (r Ref[T]) FetchXor(v T, o Order) T { return r.rmw(OpXor, v, o) }

// FetchInc is [Buffer.AtomicInc] with order o.
func (r Ref[T]) FetchInc(limit T, o Order) T { return r.rmw(OpInc, limit, o) }

// FetchDec is [Buffer.AtomicDec] with order o.
func (r Ref[T]) FetchDec(limit T, o Order) T { return r.rmw(OpDec, limit, o) }

// rmw performs read-modify-write op, not a CAS, with operand v and order
// o, and returns the old value.
func (r Ref[T]) rmw(op Op, v T, o Order) T {
	p := r.at(op, o)
	if op >= OpAnd && isFloat[T]() {
		r.t.failf("%v is not defined on %v buffer %q", op, r.b.m.Type, r.b.m.Name)
	}
	if o == SeqCst {
		r.t.fence(r.s, SeqCst)
	}
	arg := toBits(v)
	var old uint64
	if r.t.obs != nil {
		old = r.b.observed(r.t, r.i, p, op, o, r.s, arg, 0)
	} else {
		old = perform[T](p, op, arg, 0)
	}
	r.b.changed(r.t, op, old, arg)
	r.b.strong(r.t, r.i, op)
	return fromBits[T](old)
}

// at returns the element's address for op with order o, failing the
// thread as Buffer's accesses do, or on an order op cannot take.
func (r Ref[T]) at(op Op, o Order) unsafe.Pointer {
	p := r.b.atScoped(r.t, r.i, r.s)
	if p == nil {
		panic(r.b.fault(r.t, r.i, op, r.s))
	}
	if !orderAllowed(op, o) {
		r.t.failf("%v of %v buffer %q index %d with memory order %v: a load takes relaxed, acquire or seq_cst, a store relaxed, release or seq_cst, a read-modify-write any atomic order",
			op, r.b.m.Type, r.b.m.Name, r.i, o)
	}
	return p
}

// orderAllowed reports whether op may take order o, as C++ allows.
func orderAllowed(op Op, o Order) bool {
	switch {
	case o < Relaxed || o > SeqCst:
		return false
	case op == OpLoad:
		return o != Release && o != AcqRel
	case op == OpStore:
		return o != Acquire && o != AcqRel
	}
	return true
}
