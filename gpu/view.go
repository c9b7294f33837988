package gpu

import "fmt"

// Slice returns the view of elements lo to hi-1 of b, CUDA's pointer
// plus offset (p + lo, with hi-lo elements behind it): it shares b's
// memory, so a store through either is seen through the other, and it is
// a Buffer like any other, whose index i is b's index lo+i. Accesses
// through it are checked against the view: an index outside [0, hi-lo)
// fails the thread with a *[RangeError] that names the view and its
// memory. Observers and race reports see its accesses as accesses of the
// memory, at the memory's index, so a race through a view names the
// buffer and the element as the whole buffer would.
//
// Slice panics, as a Go slice expression does, unless
// 0 <= lo <= hi <= b.Len(); a kernel thread that calls it so fails with
// the panic.
func (b Buffer[T]) Slice(lo, hi int) Buffer[T] {
	if lo < 0 || hi < lo || hi > b.n {
		panic(fmt.Sprintf("gpu: Slice [%d:%d] of %s of length %d", lo, hi, b.describe(), b.n))
	}
	v := Buffer[T]{m: b.m, base: b.base, n: hi - lo, lo: b.lo + lo}
	if lo < b.n { // else keep base: one past the end is no Go pointer
		v.base = b.ptr(lo)
	}
	return v
}

// Offset returns the index, in [Buffer.Memory], of b's element 0: lo for
// a view b.Slice(lo, hi) of a whole buffer, 0 for a whole buffer.
func (b Buffer[T]) Offset() int { return b.lo }

// isView reports whether elements lo to lo+n-1 of size bytes each are
// not all of m. (A DynamicShared view of any type covers all of its
// memory.)
func isView(m *Memory, lo, n, size int) bool {
	return m != nil && (lo != 0 || n != m.Bytes()/size)
}

// describeView names elements lo to lo+n-1, of size bytes, of m: m itself
// if they are all of it, else as `view [lo,hi) of global "x"`.
func describeView(m *Memory, lo, n, size int) string {
	if !isView(m, lo, n, size) {
		return m.String()
	}
	return fmt.Sprintf("view [%d,%d) of %v", lo, lo+n, m)
}
