package gpu

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Elem is the set of element types a [Buffer] holds: the 1-, 2-, 4- and
// 8-byte integers, the 4- and 8-byte floats, and [Half], CUDA's 16-bit
// __half (its underlying uint16 holds the IEEE 754 binary16 bits; the
// runtime does its arithmetic as a float).
//
// Go has no 1- or 2-byte atomics: an element narrower than 4 bytes is
// accessed through the aligned 4-byte word that holds it, a load with an
// atomic load of the word, a store or read-modify-write with a
// compare-and-swap loop on the word that changes only the element's bits,
// so a store never undoes a neighbour's concurrent store (see narrow.go).
type Elem interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// A Space is the memory space a [Memory] lives in.
type Space uint8

// The memory spaces.
const (
	GlobalSpace Space = iota // device memory, visible to every thread of every launch
	SharedSpace              // per-block memory, visible only to the threads of one block
)

// String returns "global" or "shared".
func (s Space) String() string {
	if s == SharedSpace {
		return "shared"
	}
	return "global"
}

// A Memory is one allocation: a global buffer, or one block's instance of a
// shared array. It is what an [Observer] sees as the identity of accessed
// memory: the pair (DeviceID, ID) names it among the memories of every
// device of the process. Its fields are set when it is allocated and never
// change.
type Memory struct {
	ID       uint64 // unique on its device, never reused
	DeviceID uint64 // the [Device.ID] of the device that allocated it
	Name     string // the name given to Alloc or Shared
	Space    Space
	Block    int    // the linear id of the owning block for Shared memory; -1 for Global
	Type     string // element type, such as "float32"
	ElemSize int    // bytes per element: 1, 2, 4 or 8
	Len      int    // elements
	Base     uint64 // byte address of element 0 in its space

	words    []uint64 // backing store, accessed only through sync/atomic
	blockIdx Dim3     // the owning block's coordinates, for Shared memory
	dev      *Device  // the device that allocated it; nil if decoded
}

// Untyped reports whether m is a block's dynamic shared memory (see
// [DynamicShared]), which views of any element type alias: its ElemSize
// is 1 and its Type "byte" whatever the views' types, and an access's
// Size, not ElemSize, says how many bytes it touches.
func (m *Memory) Untyped() bool { return m.Type == untypedType }

// untypedType is the Type of dynamic shared memory. No element type is
// named so: a Buffer[byte] has Type "uint8".
const untypedType = "byte"

// BlockIdx returns the coordinates of the block owning Shared memory,
// CUDA's blockIdx; (0,0,0) for global memory.
func (m *Memory) BlockIdx() Dim3 { return m.blockIdx }

// Device returns the device that allocated the memory, or nil for a
// description decoded from JSON, which belongs to no device.
func (m *Memory) Device() *Device { return m.dev }

// Bytes returns the size of the memory in bytes.
func (m *Memory) Bytes() int { return m.Len * m.ElemSize }

// String names the memory for reports, such as `global "x"` or
// `shared "tile" of block (3,0,0)`.
func (m *Memory) String() string {
	if m.Space == SharedSpace {
		return fmt.Sprintf("shared %q of block %v", m.Name, m.blockIdx)
	}
	return fmt.Sprintf("global %q", m.Name)
}

// A Buffer is a typed view of a [Memory]: a global buffer from [Alloc], or a
// shared array from [Shared]. It is a small value; copy it into kernels
// freely. Every element access is a sync/atomic operation on the host, so a
// kernel that races never makes a Go data race; the emulated races are what
// package race reports.
//
// A Buffer may also be a view of part of its memory, made by
// [Buffer.Slice]: CUDA's pointer plus offset. A view's element i is
// element Offset()+i of its memory; it is what errors, observers and race
// reports name.
//
// The zero Buffer has length 0; any element access through it fails.
type Buffer[T Elem] struct {
	m    *Memory
	base unsafe.Pointer // the address of element 0 of the view
	n    int            // the view's length
	lo   int            // the index in m of element 0 of the view
}

// Alloc allocates n zeroed elements of global memory on d, like cudaMalloc
// followed by cudaMemset. The name identifies the buffer in errors and race
// reports. It panics, before allocating anything, if d is nil or not made
// by NewDevice, or n is negative or needs more than 2^40 bytes, the
// emulator's global address space.
func Alloc[T Elem](d *Device, name string, n int) Buffer[T] {
	if err := checkAlloc[T](d, name, n); err != nil {
		panic(err.Error())
	}
	m := newMemory[T](name, n)
	d.own(m)
	m.Space, m.Block = GlobalSpace, -1
	m.Base = d.allocAddr(m.Bytes())
	return view[T](m)
}

// FromHost allocates a global buffer on d holding a copy of host, like
// cudaMalloc followed by cudaMemcpy host-to-device.
func FromHost[T Elem](d *Device, name string, host []T) Buffer[T] {
	b := Alloc[T](d, name, len(host))
	_ = b.CopyIn(host)
	return b
}

// maxGlobalBytes bounds one global allocation: the emulator's global
// address space.
const maxGlobalBytes = 1 << 40

// checkAlloc returns why Alloc cannot allocate n elements of T on d, or
// nil.
func checkAlloc[T Elem](d *Device, name string, n int) error {
	var z T
	switch size := int(unsafe.Sizeof(z)); {
	case d == nil:
		return fmt.Errorf("gpu: Alloc %q on a nil *Device", name)
	case !d.made():
		return fmt.Errorf("gpu: Alloc %q on a Device not made by NewDevice", name)
	case n < 0:
		return fmt.Errorf("gpu: Alloc %q with negative length %d", name, n)
	case n > maxGlobalBytes/size:
		return fmt.Errorf("gpu: Alloc %q of %d %T elements needs more than the %d bytes of the global address space", name, n, z, maxGlobalBytes)
	}
	return nil
}

// own makes m a memory of d: it gives m the device's next id and the
// device's identity.
func (d *Device) own(m *Memory) {
	m.ID, m.DeviceID, m.dev = d.nextID.Add(1), d.id, d
}

func newMemory[T Elem](name string, n int) *Memory {
	var z T
	size := int(unsafe.Sizeof(z))
	return &Memory{
		Name: name, Type: reflect.TypeFor[T]().String(),
		ElemSize: size, Len: n,
		words: make([]uint64, (n*size+7)/8),
	}
}

// view returns a Buffer over all of m's words.
func view[T Elem](m *Memory) Buffer[T] {
	var z T
	b := Buffer[T]{m: m, n: m.Bytes() / int(unsafe.Sizeof(z))}
	if len(m.words) > 0 {
		b.base = unsafe.Pointer(&m.words[0])
	}
	return b
}

// Len returns the number of elements.
func (b Buffer[T]) Len() int { return b.n }

// Memory returns the allocation b views, or nil for the zero Buffer. For
// a view made by [Buffer.Slice] it is the memory the view is part of.
func (b Buffer[T]) Memory() *Memory { return b.m }

// CopyIn copies host into the buffer, like cudaMemcpy host-to-device. It
// returns an error, and copies nothing, unless len(host) == b.Len(): a
// length that differs is most often a wrong count, which cudaMemcpy
// would not catch. To copy into part of a buffer, copy into a view:
// b.Slice(off, off+len(host)).CopyIn(host). The device's observer learns
// of the copy if it is a [HostObserver]. A shared array is an error: it
// is its block's, reached only by the block's threads while it runs.
func (b Buffer[T]) CopyIn(host []T) error {
	if len(host) != b.n {
		return fmt.Errorf("gpu: CopyIn of %d elements into %s of length %d", len(host), b.describe(), b.n)
	}
	if err := b.hostReach("CopyIn"); err != nil {
		return err
	}
	observeHost(b.m, b.lo, b.n, true, "CopyIn")
	for i, v := range host {
		storeBits[T](b.ptr(i), toBits(v))
	}
	return nil
}

// CopyOut copies the buffer into host, like cudaMemcpy device-to-host. It
// returns an error, and copies nothing, unless len(host) == b.Len(); copy
// part of a buffer out of a view (see [Buffer.CopyIn]). The device's
// observer learns of the copy if it is a [HostObserver]. A shared array
// is an error, as for CopyIn.
func (b Buffer[T]) CopyOut(host []T) error {
	if len(host) != b.n {
		return fmt.Errorf("gpu: CopyOut of %s with length %d into %d elements", b.describe(), b.n, len(host))
	}
	if err := b.hostReach("CopyOut"); err != nil {
		return err
	}
	observeHost(b.m, b.lo, b.n, false, "CopyOut")
	for i := range host {
		host[i] = fromBits[T](loadBits[T](b.ptr(i)))
	}
	return nil
}

// hostReach returns an error for host operation op on shared memory: a
// block's shared memory lives only while the block runs and only its
// threads reach it, so no host copy (cudaMemcpy, cudaMemset) can. A
// Buffer of it that escaped its kernel must not be used.
func (b Buffer[T]) hostReach(op string) error {
	if b.m == nil || b.m.Space != SharedSpace {
		return nil
	}
	return fmt.Errorf("gpu: %s of %s: shared memory is its block's, reached only by the block's threads while it runs; the host cannot copy to or from it", op, b.describe())
}

// describe names the buffer's memory for host-side errors, such as
// `global "x"` or `view [2,6) of global "x"`, or "a zero Buffer", which
// views none.
func (b Buffer[T]) describe() string {
	if b.m == nil {
		return "a zero Buffer"
	}
	return describeView(b.m, b.lo, b.n, elemSize[T]())
}

// Host returns a new slice holding a copy of the buffer. It panics for a
// shared array (see [Buffer.CopyOut]), which the host cannot reach.
func (b Buffer[T]) Host() []T {
	out := make([]T, b.n)
	if err := b.CopyOut(out); err != nil {
		panic(err)
	}
	return out
}

// Fill sets every element to v, like cudaMemset for a typed value. To
// fill a range, fill a view: b.Slice(lo, hi).Fill(v). The device's
// observer learns of it if it is a [HostObserver]. It panics for a shared
// array, which the host cannot reach (CopyIn and CopyOut return that
// error).
func (b Buffer[T]) Fill(v T) {
	if err := b.hostReach("Fill"); err != nil {
		panic(err)
	}
	observeHost(b.m, b.lo, b.n, true, "Fill")
	for i := range b.n {
		storeBits[T](b.ptr(i), toBits(v))
	}
}

// ptr returns the address of element i, which the caller has bounds-checked.
func (b Buffer[T]) ptr(i int) unsafe.Pointer {
	var z T
	return unsafe.Add(b.base, uintptr(i)*unsafe.Sizeof(z))
}

// The bit helpers move a T through a uint64 holding its bit pattern,
// zero-extended, so one set of sync/atomic calls serves every element
// type. Each switches on T's size, a constant in each instantiation, so a
// 4- or 8-byte element compiles to the one sync/atomic call it needs;
// elements of 1 and 2 bytes go to the word-wide helpers of narrow.go.

func toBits[T Elem](v T) uint64 {
	switch unsafe.Sizeof(v) {
	case 1:
		return uint64(*(*uint8)(unsafe.Pointer(&v)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	}
	return *(*uint64)(unsafe.Pointer(&v))
}

func fromBits[T Elem](b uint64) T {
	var v T
	switch unsafe.Sizeof(v) {
	case 1:
		u := uint8(b)
		return *(*T)(unsafe.Pointer(&u))
	case 2:
		u := uint16(b)
		return *(*T)(unsafe.Pointer(&u))
	case 4:
		u := uint32(b)
		return *(*T)(unsafe.Pointer(&u))
	}
	return *(*T)(unsafe.Pointer(&b))
}

func loadBits[T Elem](p unsafe.Pointer) uint64 {
	var z T
	switch unsafe.Sizeof(z) {
	case 1, 2:
		return loadNarrow(p, unsafe.Sizeof(z))
	case 4:
		return uint64(atomic.LoadUint32((*uint32)(p)))
	}
	return atomic.LoadUint64((*uint64)(p))
}

// The store and read-modify-write helpers below take a 4-byte element's
// path inline and call out of line (the *Other functions) for 8-byte and
// narrow elements: the inliner prices every branch on the element's size,
// although the size is a constant in each instantiation, and a branch
// with a compare-and-swap loop would keep the whole helper out of line, a
// call on every access. The size is taken of *(*T)(nil), unevaluated, as
// a zero T variable would cost the helper its inlining too.

func storeBits[T Elem](p unsafe.Pointer, v uint64) {
	if unsafe.Sizeof(*(*T)(nil)) == 4 {
		atomic.StoreUint32((*uint32)(p), uint32(v))
		return
	}
	storeOther[T](p, v)
}

// storeOther is storeBits for a T of 8, 2 or 1 bytes.
//
//go:noinline
func storeOther[T Elem](p unsafe.Pointer, v uint64) {
	if unsafe.Sizeof(*(*T)(nil)) == 8 {
		atomic.StoreUint64((*uint64)(p), v)
		return
	}
	swapNarrow(p, unsafe.Sizeof(*(*T)(nil)), v)
}

func casBits[T Elem](p unsafe.Pointer, old, new uint64) bool {
	if unsafe.Sizeof(*(*T)(nil)) == 4 {
		return atomic.CompareAndSwapUint32((*uint32)(p), uint32(old), uint32(new))
	}
	return casOther[T](p, old, new)
}

// casOther is casBits for a T of 8, 2 or 1 bytes.
//
//go:noinline
func casOther[T Elem](p unsafe.Pointer, old, new uint64) bool {
	if unsafe.Sizeof(*(*T)(nil)) == 8 {
		return atomic.CompareAndSwapUint64((*uint64)(p), old, new)
	}
	return casNarrow(p, unsafe.Sizeof(*(*T)(nil)), old, new)
}

func swapBits[T Elem](p unsafe.Pointer, v uint64) uint64 {
	if unsafe.Sizeof(*(*T)(nil)) == 4 {
		return uint64(atomic.SwapUint32((*uint32)(p), uint32(v)))
	}
	return swapOther[T](p, v)
}

// swapOther is swapBits for a T of 8, 2 or 1 bytes.
//
//go:noinline
func swapOther[T Elem](p unsafe.Pointer, v uint64) uint64 {
	if unsafe.Sizeof(*(*T)(nil)) == 8 {
		return atomic.SwapUint64((*uint64)(p), v)
	}
	return swapNarrow(p, unsafe.Sizeof(*(*T)(nil)), v)
}

func addBits[T Elem](p unsafe.Pointer, v uint64) uint64 {
	if unsafe.Sizeof(*(*T)(nil)) == 4 {
		return uint64(atomic.AddUint32((*uint32)(p), uint32(v)) - uint32(v))
	}
	return addOther[T](p, v)
}

// addOther is addBits for a T of 8, 2 or 1 bytes.
//
//go:noinline
func addOther[T Elem](p unsafe.Pointer, v uint64) uint64 {
	if unsafe.Sizeof(*(*T)(nil)) == 8 {
		return atomic.AddUint64((*uint64)(p), v) - v
	}
	return addNarrow(p, unsafe.Sizeof(*(*T)(nil)), v)
}

// isFloat reports whether T is a floating-point type: [Half], or a type
// where 1/2 does not truncate to 0.
func isFloat[T Elem]() bool {
	one := T(1)
	return one/2 != 0 || isHalf[T]()
}
