package gpu

import (
	"unsafe"

	"github.com/warpguard/warpguard/scope"
)

// spinYield is how many strong or atomic accesses a thread makes between
// yields. A thread spinning on a flag uses such accesses (CUDA requires
// volatile or atomic loads there), so yielding every spinYield of them lets
// the flag's writer run under every executor, for the cost of a counter
// increment per access.
const spinYield = 64

// at returns the address of element i, or nil if the launch has stopped,
// i is out of range, or another device allocated the memory: the caller
// then panics with the record fault makes. The checks share one branch,
// and the slow path is the caller's, so that at inlines into every access
// method (an access is then one call) and the fast path keeps nothing for
// the slow one. The device check follows the index check, which rules
// out the zero Buffer, which has no memory; it compares the memory's
// device with the thread's copy of the launch's, one load each. The
// address of an element in range is never nil.
func (b Buffer[T]) at(t *Thread, i int) unsafe.Pointer {
	if uint(i) >= uint(b.n) || b.m.dev != t.dev || t.stop.Load() {
		return nil
	}
	return b.ptr(i)
}

// atScoped is at for operations that take a scope argument: an invalid
// scope fails the same check.
func (b Buffer[T]) atScoped(t *Thread, i int, s scope.Scope) unsafe.Pointer {
	if s > scope.System || uint(i) >= uint(b.n) || b.m.dev != t.dev || t.stop.Load() {
		return nil
	}
	return b.ptr(i)
}

// fault records on t the fault of an access of element i that failed at's
// checks, and returns the record. For a fault that is an error, not the
// launch's stop, it keeps the kernel's line, which the error names even if
// the kernel recovers the panic and its thread returns normally.
//
//go:noinline
func (b Buffer[T]) fault(t *Thread, i int, op Op, s scope.Scope) *fault {
	t.flt = fault{t, b.m, i, b.n, op, s, b.lo, elemSize[T](), Site{}, t.ended()}
	if t.flt.err() != errStopped {
		t.flt.site = t.kernelSite()
	}
	return &t.flt
}

// strong counts a strong access of element i and yields every spinYield
// of them.
func (b Buffer[T]) strong(t *Thread, i int, op Op) {
	t.spins++
	if t.spins >= spinYield {
		t.yieldAt(b.m, b.lo+i, op)
	}
}

// yieldAt yields while spinning at an access of element i of m, which a
// stall report names if the launch stops meanwhile.
//
//go:noinline
func (t *Thread) yieldAt(m *Memory, i int, op Op) {
	s := t.syncState
	s.spinMem, s.spinIdx, s.spinOp = m, i, op
	t.yieldSpin()
	s.spinMem = nil
}

// polled notes an observed strong load or read-modify-write (not a CAS)
// that found v at addr, and reports whether it repeats the thread's last
// observed access, the same element and the same value (any other observed
// access clears pollAt). A repeated strong load, or a repeated
// read-modify-write that left the element as it found it, as
// atomicAdd(flag, 0) does, is a poll of a flag that has not changed, and
// counts pollWeight strong accesses toward the thread's yield instead of
// one (see notePoll): an observer makes each poll many times dearer,
// and a block hands its processor on only when all its threads have
// yielded (fiberExec.spinRound), so counted as one a spinning block kept
// the processor that much longer while the thread it waits for waited
// for one. Loads with other accesses between them are not counted so: a
// consumer that polls a flag already raised, then reads the data, is not
// spinning, and yielding it sooner would only delay its progress.
func (t *Thread) polled(addr uintptr, v uint64) bool {
	s := t.syncState
	again := addr == s.pollAt && v == s.pollV
	s.pollAt, s.pollV = addr, v
	return again
}

// pollWeight is what an observed repeated poll counts toward a yield: a
// thread that reads the same value at the same address again is waiting
// for another thread, so it yields sooner than one making progress. It is
// small, because under an observer every poll is already slow, and a
// larger weight only yields more often without letting the writer run
// sooner.
const pollWeight = 4

//go:noinline
func (t *Thread) yieldSpin() {
	if t.parked { // the access's stop check came first: see own
		t.shared("a spinning access")
	}
	t.weak.yieldsNow++
	t.spins = 0
	if !t.progress {
		// Most likely spinning: yield again after spinYield/8 strong
		// accesses, so that what the thread waits for runs sooner.
		t.spins = spinYield - spinYield/8
	}
	t.blk.spun(t)
	t.blk.exec.yield(t)
	t.progress = false
}

// fill writes access i of b, of op with order o and scope s, that found
// old, with operand arg and comparand cmp, into a, the thread's record
// the observer is handed; held says the runtime holds the element's
// sequencing mutexes (see Access.Sequenced). Field by field: a composite
// literal is built on the stack and copied with wide loads that stall on
// its narrow stores. It is small enough to inline into each report,
// which then makes one call, the observer's, where a report through an
// out-of-line helper made two and passed a dozen arguments, some on the
// stack.
func (b Buffer[T]) fill(a *Access, i int, op Op, o Order, s scope.Scope, old, arg, cmp uint64, held bool) {
	var z T
	size := unsafe.Sizeof(z)
	a.Mem, a.Index, a.Offset = b.m, b.lo+i, uint64(uintptr(b.lo+i)*size)
	a.Size, a.Op, a.Order, a.Scope = uint8(size), op, o, s
	a.Old, a.Arg, a.Cmp, a.Sequenced, a.ReadOnly = old, arg, cmp, held, false
}

// polls reports whether an access of op with order o may poll a flag:
// a strong load, or a read-modify-write but a CAS (whose failures
// failedCAS counts).
func polls(op Op, o Order) bool { return op == OpLoad && o != Weak || op.IsRMW() && op != OpCAS }

// notePoll notes a reported access of element i that polls (see polls),
// of op with operand arg, that found old: a repeat of the thread's last
// poll (see polled) that left the element as it found it counts
// pollWeight strong accesses toward the thread's yield.
func (b Buffer[T]) notePoll(t *Thread, i int, op Op, old, arg uint64) {
	if t.polled(uintptr(b.ptr(i)), old) && (op == OpLoad || unchanged[T](op, old, arg)) {
		t.spins += pollWeight - 1
	}
}

// Load returns element i with a weak (plain) load, CUDA's ordinary read of
// global or shared memory. A weak load gives no ordering: spin on a flag
// with [Buffer.LoadVolatile] or an atomic instead, as CUDA requires. A
// thread that polls one element with weak loads anyway is caught (see the
// package documentation's "Never a hang"): it yields as a spinning atomic
// does, and a stall report says it polls a weak load.
func (b Buffer[T]) Load(t *Thread, i int) T {
	p := b.at(t, i)
	if p == nil {
		panic(b.fault(t, i, OpLoad, scope.Thread))
	}
	v := loadBits[T](p)
	if t.obs != nil {
		return fromBits[T](b.observedLoad(t, i, p, v, false))
	}
	if t.weakN++; t.weakN&(weakSpin-1) == 0 {
		return fromBits[T](t.weakPolled(b.m, b.lo+i, uintptr(p), v))
	}
	return fromBits[T](v)
}

// observedLoad reports a weak load of element i, at p, that read v, and
// counts it as Load does; it returns v. Out of line, and returning v, it
// leaves Load's unobserved path nothing to keep across a call. ro says
// the load is through a read-only view of b's elements (see ReadOnly).
//
//go:noinline
func (b Buffer[T]) observedLoad(t *Thread, i int, p unsafe.Pointer, v uint64, ro bool) uint64 {
	b.fill(&t.acc, i, OpLoad, Weak, scope.Thread, v, 0, 0, false)
	if ro {
		t.acc.ReadOnly, t.acc.ViewLo, t.acc.ViewLen = b.m.Space == GlobalSpace, b.lo, b.n
	}
	t.obs.Access(t, &t.acc)
	t.pollAt = 0 // a weak load does not poll (see polls)
	if t.weakN++; t.weakN&(weakSpin-1) == 0 {
		return t.weakPolled(b.m, b.lo+i, uintptr(p), v)
	}
	return v
}

// Store sets element i to v with a weak (plain) store. It restarts the
// thread's weak-load count (see weakSpin).
func (b Buffer[T]) Store(t *Thread, i int, v T) {
	p := b.at(t, i)
	if p == nil {
		panic(b.fault(t, i, OpStore, scope.Thread))
	}
	t.weakN = 0
	if t.obs != nil {
		b.observed(t, i, p, OpStore, Weak, scope.Thread, toBits(v), 0)
		return
	}
	storeBits[T](p, toBits(v))
}

// LoadVolatile returns element i with a strong relaxed load, CUDA's volatile
// read (PTX ld.volatile, relaxed at system scope). It orders nothing by
// itself; it guarantees the value is read from memory each time.
func (b Buffer[T]) LoadVolatile(t *Thread, i int) T {
	p := b.at(t, i)
	if p == nil {
		panic(b.fault(t, i, OpLoad, scope.Thread))
	}
	var v uint64
	if t.obs != nil {
		v = b.observed(t, i, p, OpLoad, Volatile, scope.System, 0, 0)
	} else {
		v = loadBits[T](p)
	}
	b.strong(t, i, OpLoad)
	return fromBits[T](v)
}

// StoreVolatile sets element i to v with a strong relaxed store, CUDA's
// volatile write.
func (b Buffer[T]) StoreVolatile(t *Thread, i int, v T) {
	p := b.at(t, i)
	if p == nil {
		panic(b.fault(t, i, OpStore, scope.Thread))
	}
	t.storeChanges(loadBits[T](p), toBits(v))
	if t.obs != nil {
		b.observed(t, i, p, OpStore, Volatile, scope.System, toBits(v), 0)
	} else {
		storeBits[T](p, toBits(v))
	}
	b.strong(t, i, OpStore)
}

// storeChanges counts a strong store of bits v over an element that held
// old as progress (see ErrLivelock) if it changes the element: a spin that
// stores back the value it reads, as an atomicExch of the same value does,
// changes no memory and can release no one.
func (t *Thread) storeChanges(old, v uint64) {
	if old != v {
		t.progress = true
	}
}

// AtomicLoad returns element i with a relaxed atomic load of scope s,
// libcu++'s atomic_ref<T, s>::load(memory_order_relaxed).
func (b Buffer[T]) AtomicLoad(t *Thread, i int, s scope.Scope) T {
	return b.load(t, i, Relaxed, s)
}

// LoadAcquire returns element i with an acquire load of scope s,
// atomic_ref<T, s>::load(memory_order_acquire).
//
// In the terminology of [the Go memory model], a release store of scope s
// to an element "synchronizes before" an acquire load of scope s that reads
// the value it stored, when s covers both threads: every write the storing
// thread made before the store is visible to the loading thread after the
// load. The emulator performs every access with sequentially consistent
// Go atomics, so it never shows a weaker outcome; package race reports
// kernels that rely on a scope too narrow for the guarantee.
//
// [the Go memory model]: https://go.dev/ref/mem
func (b Buffer[T]) LoadAcquire(t *Thread, i int, s scope.Scope) T {
	return b.load(t, i, Acquire, s)
}

func (b Buffer[T]) load(t *Thread, i int, o Order, s scope.Scope) T {
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, OpLoad, s))
	}
	var v uint64
	if t.obs != nil {
		v = b.observed(t, i, p, OpLoad, o, s, 0, 0)
	} else {
		v = loadBits[T](p)
	}
	b.strong(t, i, OpLoad)
	return fromBits[T](v)
}

// AtomicStore sets element i to v with a relaxed atomic store of scope s,
// atomic_ref<T, s>::store(v, memory_order_relaxed).
func (b Buffer[T]) AtomicStore(t *Thread, i int, v T, s scope.Scope) {
	b.store(t, i, v, Relaxed, s)
}

// StoreRelease sets element i to v with a release store of scope s,
// atomic_ref<T, s>::store(v, memory_order_release). See
// [Buffer.LoadAcquire] for the guarantee it gives.
func (b Buffer[T]) StoreRelease(t *Thread, i int, v T, s scope.Scope) {
	b.store(t, i, v, Release, s)
}

func (b Buffer[T]) store(t *Thread, i int, v T, o Order, s scope.Scope) {
	p := b.atScoped(t, i, s)
	if p == nil {
		panic(b.fault(t, i, OpStore, s))
	}
	// An observer learns of a release before its store takes effect (see
	// observed): it must know the release (a fence, then a store) before
	// any thread can see the value it publishes. Reported after, a reader
	// in another block could see the flag, read the data it guards, and be
	// checked while the release was still unknown.
	t.storeChanges(loadBits[T](p), toBits(v))
	if t.obs != nil {
		b.observed(t, i, p, OpStore, o, s, toBits(v), 0)
	} else {
		storeBits[T](p, toBits(v))
	}
	b.strong(t, i, OpStore)
}
