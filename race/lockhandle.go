package race

import (
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
// Handles are given once per set and table, under mu; a set caches its
// handle (lockSet.ref), so the common case, a set already named, takes
// no lock. Sets are read by handle without a lock: a handle reaches a
// reader only through the entry that holds it, whose lock the writer of
// the handle released after interning it, or through the set's cache,
// stored after the set; either way the set's store in its chunk is
// synchronized before the reader's load.
type lockTable struct {
	mu     sync.Mutex
	n      uint32                  // handles given, under mu
	byset  map[*lockSet]lockHandle // sets whose cache names another table, under mu
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

// name gives s a handle in t, or returns the one it has. A set another
// launch's table named last keeps its handle there in t.byset, so that
// launches sharing a set name it once each rather than at every check.
// A launch that names 2^32-1 sets panics, which the runtime turns into
// the launch's error, rather than let handles wrap.
//
//go:noinline
func (t *lockTable) name(s *lockSet) lockHandle {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, ok := t.byset[s]; ok {
		return h
	}
	if t.n == 1<<32-1 {
		panic(fmt.Sprintf("race: a launch held %d distinct locksets; the detector names them in 32 bits", t.n))
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
	if t.byset == nil {
		t.byset = map[*lockSet]lockHandle{}
	}
	t.byset[s] = h
	s.ref.Store(&lockRef{t, h})
	return h
}
