package gpu

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// Shared returns the calling thread's block's shared array called name, of
// n elements of T, allocating it zeroed on the block's first call: CUDA's
// `__shared__ T name[n]`. Every thread of the block that calls Shared with
// the same name gets the same array; threads of other blocks get their own.
// Declaring one name with two types or lengths, or exceeding the device's
// shared memory per block, fails the thread with an error.
func Shared[T Elem](t *Thread, name string, n int) Buffer[T] {
	t.check()
	b := t.blk
	b.shMu.Lock()
	defer b.shMu.Unlock()
	for _, m := range b.shared {
		if m.Name == name {
			return sharedView[T](t, m, n)
		}
	}
	if err := b.sharedRoom(name, n, elemSize[T](), reflect.TypeFor[T]().String()); err != nil {
		b.shMu.Unlock()
		defer b.shMu.Lock()
		t.fail(err)
	}
	m := newMemory[T](name, n)
	b.l.d.own(m)
	m.Space, m.Block, m.Base = SharedSpace, b.id, uint64(b.sharedTop)
	m.blockIdx = b.idx
	b.sharedTop += (m.Bytes() + 15) &^ 15
	b.shared = append(b.shared, m)
	return view[T](m)
}

// sharedRoom returns why the block cannot declare a shared array of n
// elements of typ, of size bytes each, or nil. It divides rather than multiplies, so
// no length overflows it, and runs before anything is allocated.
// Preconditions: b.shMu held.
func (b *block) sharedRoom(name string, n, size int, typ string) error {
	limit := b.l.d.cfg.SharedMemPerBlock
	left := limit - b.sharedTop - b.l.cfg.DynamicShared
	switch {
	case n < 0:
		return fmt.Errorf("shared array %q with negative length %d", name, n)
	case n > left/size:
		need := fmt.Sprint(uint64(n) * uint64(size))
		if n > math.MaxInt/size {
			need = "more than 2^63"
		}
		return fmt.Errorf("shared array %q of %d %s needs %s bytes; the block has %d of %d bytes left", name, n, typ, need, left, limit)
	}
	return nil
}

// elemSize returns the size of T in bytes.
func elemSize[T Elem]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// sharedView checks that an existing shared array matches this thread's
// declaration. Preconditions: t.blk.shMu held.
func sharedView[T Elem](t *Thread, m *Memory, n int) Buffer[T] {
	if typ := reflect.TypeFor[T]().String(); m.Type != typ || m.Len != n {
		t.blk.shMu.Unlock()
		defer t.blk.shMu.Lock()
		t.failf("shared array %q declared as [%d]%s here but as [%d]%s by another thread of the block",
			m.Name, n, typ, m.Len, m.Type)
	}
	return view[T](m)
}

// DynamicShared returns the block's dynamic shared memory, the
// LaunchConfig.DynamicShared bytes CUDA declares as `extern __shared__ T s[]`,
// viewed as elements of T. Views of different types alias the same bytes.
func DynamicShared[T Elem](t *Thread) Buffer[T] {
	t.check()
	b := t.blk
	b.shMu.Lock()
	defer b.shMu.Unlock()
	if b.dyn == nil {
		size := b.l.cfg.DynamicShared
		b.dyn = &Memory{
			Name: "dynamic", Space: SharedSpace, Block: b.id,
			Type: untypedType, ElemSize: 1, Len: size, Base: 1 << 32, blockIdx: b.idx,
			words: make([]uint64, (size+7)/8),
		}
		b.l.d.own(b.dyn)
	}
	return view[T](b.dyn)
}
