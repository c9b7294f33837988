package gpu

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Elem is the set of element types a [Buffer] holds: the 4- and 8-byte
// integers and floats CUDA atomics operate on.
type Elem interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
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
	ElemSize int    // bytes per element: 4 or 8
	Len      int    // elements
	Base     uint64 // byte address of element 0 in its space

	words    []uint64 // backing store, accessed only through sync/atomic
	blockIdx Dim3     // the owning block's coordinates, for Shared memory
	dev      *Device  // the device that allocated it; nil if decoded
}

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
// The zero Buffer has length 0; any element access through it fails.
type Buffer[T Elem] struct {
	m    *Memory
	base unsafe.Pointer
	n    int
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

// Memory returns the allocation b views, or nil for the zero Buffer.
func (b Buffer[T]) Memory() *Memory { return b.m }

// CopyIn copies host into the buffer, like cudaMemcpy host-to-device. It
// returns an error, and copies nothing, unless len(host) == b.Len(). The
// device's observer learns of the copy if it is a [HostObserver].
func (b Buffer[T]) CopyIn(host []T) error {
	if len(host) != b.n {
		return fmt.Errorf("gpu: CopyIn of %d elements into %s of length %d", len(host), b.describe(), b.n)
	}
	observeHost(b.m, b.n, true, "CopyIn")
	for i, v := range host {
		storeBits[T](b.ptr(i), toBits(v))
	}
	return nil
}

// CopyOut copies the buffer into host, like cudaMemcpy device-to-host. It
// returns an error, and copies nothing, unless len(host) == b.Len(). The
// device's observer learns of the copy if it is a [HostObserver].
func (b Buffer[T]) CopyOut(host []T) error {
	if len(host) != b.n {
		return fmt.Errorf("gpu: CopyOut of %s with length %d into %d elements", b.describe(), b.n, len(host))
	}
	observeHost(b.m, b.n, false, "CopyOut")
	for i := range host {
		host[i] = fromBits[T](loadBits[T](b.ptr(i)))
	}
	return nil
}

// describe names the buffer's memory for host-side errors, or "a zero
// Buffer", which views none.
func (b Buffer[T]) describe() string {
	if b.m == nil {
		return "a zero Buffer"
	}
	return b.m.String()
}

// Host returns a new slice holding a copy of the buffer.
func (b Buffer[T]) Host() []T {
	out := make([]T, b.n)
	_ = b.CopyOut(out)
	return out
}

// Fill sets every element to v, like cudaMemset for a typed value. The
// device's observer learns of it if it is a [HostObserver].
func (b Buffer[T]) Fill(v T) {
	observeHost(b.m, b.n, true, "Fill")
	for i := range b.n {
		storeBits[T](b.ptr(i), toBits(v))
	}
}

// ptr returns the address of element i, which the caller has bounds-checked.
func (b Buffer[T]) ptr(i int) unsafe.Pointer {
	var z T
	return unsafe.Add(b.base, uintptr(i)*unsafe.Sizeof(z))
}

// The bit helpers move a T through a uint64 holding its bit pattern, so one
// set of sync/atomic calls serves every element type.

func toBits[T Elem](v T) uint64 {
	if unsafe.Sizeof(v) == 4 {
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	}
	return *(*uint64)(unsafe.Pointer(&v))
}

func fromBits[T Elem](b uint64) T {
	var v T
	if unsafe.Sizeof(v) == 4 {
		u := uint32(b)
		return *(*T)(unsafe.Pointer(&u))
	}
	return *(*T)(unsafe.Pointer(&b))
}

func loadBits[T Elem](p unsafe.Pointer) uint64 {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return uint64(atomic.LoadUint32((*uint32)(p)))
	}
	return atomic.LoadUint64((*uint64)(p))
}

func storeBits[T Elem](p unsafe.Pointer, v uint64) {
	var z T
	if unsafe.Sizeof(z) == 4 {
		atomic.StoreUint32((*uint32)(p), uint32(v))
		return
	}
	atomic.StoreUint64((*uint64)(p), v)
}

func casBits[T Elem](p unsafe.Pointer, old, new uint64) bool {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return atomic.CompareAndSwapUint32((*uint32)(p), uint32(old), uint32(new))
	}
	return atomic.CompareAndSwapUint64((*uint64)(p), old, new)
}

func swapBits[T Elem](p unsafe.Pointer, v uint64) uint64 {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return uint64(atomic.SwapUint32((*uint32)(p), uint32(v)))
	}
	return atomic.SwapUint64((*uint64)(p), v)
}

func addBits[T Elem](p unsafe.Pointer, v uint64) uint64 {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return uint64(atomic.AddUint32((*uint32)(p), uint32(v)) - uint32(v))
	}
	return atomic.AddUint64((*uint64)(p), v) - v
}

// isFloat reports whether T is a floating-point type: only there does 1/2
// not truncate to 0.
func isFloat[T Elem]() bool {
	one := T(1)
	return one/2 != 0
}
