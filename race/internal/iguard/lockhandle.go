package iguard

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
)

// A lockHandle names a lockset in its launch's lockTable, in the four
// bytes an entry has for it; 0 is the empty set.
type lockHandle uint32

// A lockRef is a lockset's handle in one table, cached on the set.
type lockRef struct {
	tab *lockTable
	id  lockHandle
}

// lockChunk0Bits sets the size of a lockTable's first chunk; chunk k
// holds 1<<(lockChunk0Bits+k) sets, so that lockChunks chunks hold every
// handle 32 bits can name.
const (
	lockChunk0Bits = 4
	lockChunks     = 33 - lockChunk0Bits
)

// A lockTable holds the locksets a launch's entries name, by handle.
// Handles are given once per content and table, under mu: a lock table
// publishes a new set at every change, so a thread taking one lock after
// another makes a set per acquisition, and naming each anew would keep
// them all until the launch ends; the table grows with the distinct
// locksets instead. A set caches its handle (lockSet.ref), so the common
// case, a set already named, takes no lock. Sets are read by handle without a lock: a handle reaches a
// reader only through the entry that holds it, whose lock the writer of
// the handle released after interning it, or through the set's cache,
// stored after the set; either way the set's store in its chunk is
// synchronized before the reader's load.
type lockTable struct {
	mu     sync.Mutex
	n      uint32                // handles given, under mu
	byids  map[string]lockHandle // handles by the sets' identities (idsKey), under mu
	chunks [lockChunks]atomic.Pointer[[]atomic.Pointer[lockSet]]
}

// chunk returns the chunk of h, h > 0, and its index there.
func (h lockHandle) chunk() (int, uint64) {
	i := uint64(h) - 1 + 1<<lockChunk0Bits
	k := bits.Len64(i) - 1 - lockChunk0Bits
	return k, i - 1<<(lockChunk0Bits+k)
}

// lookup returns the set h names; nil for 0.
func (t *lockTable) lookup(h lockHandle) *lockSet {
	if h == 0 {
		return nil
	}
	k, i := h.chunk()
	return (*t.chunks[k].Load())[i].Load()
}

// intern returns s's handle, naming it first if needed.
func (t *lockTable) intern(s *lockSet) lockHandle {
	if s.empty() {
		return 0
	}
	if r := s.ref.Load(); r != nil && r.tab == t {
		return r.id
	}
	return t.name(s)
}

// name returns the handle of s's identities in t, giving one if none
// has it, and caches it on s. A set two launches share is named once in
// each, then found by its identities when the other launch's cache
// replaced t's.
// A launch that names 2^32-1 sets panics, which the runtime turns into
// the launch's error, rather than let handles wrap.
//
//go:noinline
func (t *lockTable) name(s *lockSet) lockHandle {
	t.mu.Lock()
	defer t.mu.Unlock()
	key := idsKey(s.ids)
	if h, ok := t.byids[key]; ok {
		s.ref.Store(&lockRef{t, h})
		return h
	}
	if t.n == 1<<32-1 {
		panic(fmt.Errorf("race: a launch held %d distinct locksets; the detector names them in 32 bits", t.n))
	}
	t.n++
	h := lockHandle(t.n)
	k, i := h.chunk()
	c := t.chunks[k].Load()
	if c == nil {
		s := make([]atomic.Pointer[lockSet], 1<<(lockChunk0Bits+k))
		c = &s
		t.chunks[k].Store(c)
	}
	(*c)[i].Store(s)
	if t.byids == nil {
		t.byids = map[string]lockHandle{}
	}
	t.byids[key] = h
	s.ref.Store(&lockRef{t, h})
	return h
}

// idsKey returns the identities ids as a map key: each one's memory's
// device and id, granule, element and block.
func idsKey(ids []lockID) string {
	b := make([]byte, 0, len(ids)*40)
	for _, id := range ids {
		b = binary.LittleEndian.AppendUint64(b, id.key.mem.DeviceID)
		b = binary.LittleEndian.AppendUint64(b, id.key.mem.ID)
		b = binary.LittleEndian.AppendUint64(b, id.key.gran)
		b = binary.LittleEndian.AppendUint64(b, uint64(id.key.index))
		b = binary.LittleEndian.AppendUint64(b, uint64(id.block))
	}
	return string(b)
}
