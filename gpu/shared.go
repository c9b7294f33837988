package gpu

import "reflect"

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
	if n < 0 {
		b.shMu.Unlock()
		defer b.shMu.Lock()
		t.failf("shared array %q with negative length %d", name, n)
	}
	m := newMemory[T](name, n)
	if b.sharedTop+m.Bytes()+b.l.cfg.DynamicShared > b.l.d.cfg.SharedMemPerBlock {
		b.shMu.Unlock()
		defer b.shMu.Lock()
		t.failf("shared array %q of %d %s needs %d bytes; the block has %d of %d bytes left",
			name, n, m.Type, m.Bytes(), b.l.d.cfg.SharedMemPerBlock-b.sharedTop-b.l.cfg.DynamicShared, b.l.d.cfg.SharedMemPerBlock)
	}
	m.ID, m.Space, m.Block, m.Base = b.l.d.nextID.Add(1), SharedSpace, b.id, uint64(b.sharedTop)
	b.sharedTop += (m.Bytes() + 15) &^ 15
	b.shared = append(b.shared, m)
	return view[T](m)
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
// Config.DynamicShared bytes CUDA declares as `extern __shared__ T s[]`,
// viewed as elements of T. Views of different types alias the same bytes.
func DynamicShared[T Elem](t *Thread) Buffer[T] {
	t.check()
	b := t.blk
	b.shMu.Lock()
	defer b.shMu.Unlock()
	if b.dyn == nil {
		size := b.l.cfg.DynamicShared
		b.dyn = &Memory{
			ID: b.l.d.nextID.Add(1), Name: "dynamic", Space: SharedSpace, Block: b.id,
			Type: "byte", ElemSize: 1, Len: size, Base: 1 << 32,
			words: make([]uint64, (size+7)/8),
		}
	}
	return view[T](b.dyn)
}
