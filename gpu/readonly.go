package gpu

import "github.com/warpguard/warpguard/scope"

// ReadOnly is a read-only view of a buffer of global memory: CUDA's
// const T* __restrict__ kernel parameter, or a load through __ldg. Its
// loads are weak loads, with a promise the kernel makes, as CUDA's
// read-only data cache requires: no element of the view is written while
// a launch that reads through it runs, by that launch's threads or any
// other's, or by the host. A write made before the launch started (by
// the host, or by a launch that had ended), or made by a launch that
// starts after it ended, keeps the promise.
//
// The runtime does not check the promise; an [Observer] sees each load
// as a weak load with [Access].ReadOnly set and the view's range, and
// package race checks the promise, element by element of the view, in
// place of the loads themselves (a read cannot race with a read, and a
// write that could race with the load breaks the promise). A view of
// shared memory loads as [Buffer.Load] does, with no promise.
//
// The zero ReadOnly has length 0; any load through it fails.
type ReadOnly[T Elem] struct {
	b Buffer[T]
}

// ReadOnly returns the read-only view of b's elements: what a kernel
// reads through it must not change while the kernel runs (see
// [ReadOnly]).
func (b Buffer[T]) ReadOnly() ReadOnly[T] { return ReadOnly[T]{b} }

// Len returns the number of elements in the view.
func (r ReadOnly[T]) Len() int { return r.b.n }

// Buffer returns the writable buffer the view reads.
func (r ReadOnly[T]) Buffer() Buffer[T] { return r.b }

// Load returns element i, as [Buffer.Load] does, through the read-only
// path. An index outside the view fails the thread with a *[RangeError].
func (r ReadOnly[T]) Load(t *Thread, i int) T {
	b := r.b
	p := b.at(t, i)
	if p == nil {
		panic(b.fault(t, i, OpLoad, scope.Thread))
	}
	v := loadBits[T](p)
	if t.obs != nil {
		return fromBits[T](b.observedLoad(t, i, p, v, true))
	}
	if t.weakN++; t.weakN&(weakSpin-1) == 0 {
		return fromBits[T](t.weakPolled(b.m, b.lo+i, uintptr(p), v))
	}
	return fromBits[T](v)
}
