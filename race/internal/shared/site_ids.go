package shared

import (
	"sync"
	"sync/atomic"
)

// Site handles. A first record (race/internal/iguard, first.go) packs a
// granule's first access into one word, and with history that word must
// also name the access's call path: a pointer would make the collector
// scan every slot and would not fit beside the access. So each slot the
// cache makes, and each bare slot, gets a small number, its handle, and
// a table turns the handle back into the slot when a report or an
// entry needs it.
//
// The cache makes one slot per distinct call path for the life of the
// Sites: a path whose cache line another path took is found again in
// keyed, so handles do not run out while paths alternate.

// HandleBits is the width of a handle; handle 0 is the nil slot, and a
// slot made after the table filled has no handle. A record that packs a
// handle into fewer bits takes only the handles that fit.
const HandleBits = 22

// chunkBits sets the handles per chunk of the table.
const chunkBits = 10

// handles numbers slots and finds them by number.
type handles struct {
	mu     sync.Mutex
	n      uint32 // handles given out, handle 0 included
	chunks [1 << (HandleBits - chunkBits)]atomic.Pointer[handleChunk]
	keyed  map[[framePCsLen]uintptr]*SiteSlot // every cached path's slot
}

// handleChunk holds the slots of 1<<chunkBits consecutive handles.
type handleChunk [1 << chunkBits]atomic.Pointer[SiteSlot]

// number gives s the next handle, if any is left, and enters it in the
// table. Preconditions: h.mu held, and s not yet published: the table's
// store synchronizes before the store that publishes s, so whoever
// learns s's handle from s finds s in the table.
func (h *handles) number(s *SiteSlot) {
	h.n = max(h.n, 1)
	if h.n >= 1<<HandleBits {
		return
	}
	c := h.chunks[h.n>>chunkBits].Load()
	if c == nil {
		c = new(handleChunk)
		h.chunks[h.n>>chunkBits].Store(c)
	}
	c[h.n&(1<<chunkBits-1)].Store(s)
	s.handle = h.n
	h.n++
}

// Handle returns s's handle and true; 0 and true for the nil slot; and
// false for a slot made after the handles ran out.
func (s *SiteSlot) Handle() (uint32, bool) {
	if s == nil {
		return 0, true
	}
	return s.handle, s.handle != 0
}

// Slot returns the slot with handle h: nil for 0. A handle comes from
// [SiteSlot.Handle] of a slot of c.
func (c *Sites) Slot(h uint32) *SiteSlot {
	if h == 0 {
		return nil
	}
	return c.ids.chunks[h>>chunkBits].Load()[h&(1<<chunkBits-1)].Load()
}

// keyedSlot returns the slot kept for the path of key, or nil.
func (h *handles) keyedSlot(key *[framePCsLen]uintptr) *SiteSlot {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keyed[*key]
}

// keep keeps s as the slot of its path and numbers it, an open one
// excepted, unless another thread kept one for the path first: then it
// returns that one, so that a path has one slot and one handle.
func (h *handles) keep(s *SiteSlot) *SiteSlot {
	h.mu.Lock()
	defer h.mu.Unlock()
	if k := h.keyed[s.key]; k != nil {
		return k
	}
	if h.keyed == nil {
		h.keyed = make(map[[framePCsLen]uintptr]*SiteSlot)
	}
	if !s.open {
		h.number(s)
	}
	h.keyed[s.key] = s
	return s
}
