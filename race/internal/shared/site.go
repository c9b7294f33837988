package shared

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/callsite"
)

// framePCsLen is how many return addresses key a site. Walked from an
// Observer method's frame (see Lookup), the first two or three are the
// runtime's (gpu's observed step, and the Buffer method where it is not
// inlined into the kernel), which leaves the kernel's first frames, up
// to stackDepth of them, for a report's stack. Every address more is one
// more dependent load on every access with history.
const framePCsLen = callsite.WalkLen

// A PathKey is the return addresses that key a call path, as
// callsite.Walk stores them; zero past the last.
type PathKey = [framePCsLen]uintptr

// slotBits sets the size of the site cache: 1<<slotBits slots.
const slotBits = 12

// slotCount is the size of the site cache.
const slotCount = 1 << slotBits

// stackDepth bounds the kernel frames of a report's call stack.
const stackDepth = 4

// Sites caches the kernel site of each call path. gpu.Thread.Caller walks
// the whole stack and interns it, which costs more than a check; the
// cache keys a site by the return addresses of the first frames above the
// detector, read through frame pointers, and reads it with one atomic
// load. A slot holds the last path that hashed to it; a collision costs a
// map lookup under a lock, never a wrong site, and a path is resolved
// (gpu.Thread.Caller) once for the life of the cache. A key whose frames
// end before the kernel's (a call from deep in a detector's checks, as a
// report's) does not determine its site; it is kept as open, and each
// access through it is looked up by a longer key (see openSite), whose
// frames reach the kernel's. A slot is never
// changed once stored, and its store synchronizes before every load that
// observes it, so a thread that loads a slot sees its key, site, stack
// and handle as written.
//
// With Stacks set (history), a slot also holds the kernel frames of its
// path, those of its first stackDepth that the key holds: frames past the
// key could differ between paths that share it.
type Sites struct {
	slots [slotCount]atomic.Pointer[SiteSlot]
	// Stacks makes each slot keep its path's kernel frames, for
	// history; it is set before the cache is first used.
	Stacks bool
	bare   sync.Map // gpu.Site -> *SiteSlot: slots of sites with no cached path
	ids    handles  // every slot made, by handle (site_ids.go)
	// long caches the sites of the paths through open keys, keyed by
	// their first callsite.LongLen return addresses (see openSite).
	long [longSlots]atomic.Pointer[longSlot]
}

// longBits sets the size of the cache of long paths, 1<<longBits slots:
// the open keys are the few paths a detector asks from deep in its
// checks.
const longBits = 8

// longSlots is the size of the cache of long paths.
const longSlots = 1 << longBits

// A longSlot is the cached site of a long path, or the zero Site for a
// path whose key does not name its site even at that length.
type longSlot struct {
	key  [callsite.LongLen]uintptr
	site gpu.Site
}

// A SiteSlot is the cache entry of one call path: the key that names the
// path, its kernel site and, with Stacks, its kernel frames. A nil
// *SiteSlot is a path not cached.
type SiteSlot struct {
	key    [framePCsLen]uintptr
	site   gpu.Site
	stack  []gpu.Site // with stacks: the path's kernel frames, innermost first
	handle uint32     // its number in the table of slots, 0 for none (site_ids.go)
	// open marks a key that does not determine its site: the kernel's
	// frame lies past the key's frames, so paths from several kernel
	// lines share it, and each access through it is resolved by its
	// longer key (see openSite). It has no site, stack or handle.
	open bool
	// A slot fills its size class's objects, which are aligned to
	// their size, so no other object shares its cache lines: every
	// access with history reads the slot, from every core, and a
	// neighbour written by another core would make each read a miss.
	_ [40]byte
}

// slotSize is a SiteSlot's size: a size class of the Go allocator that
// is a multiple of the cache line.
const slotSize = 128

// A SiteSlot is exactly slotSize bytes, and Lookup compares every word
// of a key (compile errors otherwise).
const (
	_ = slotSize - unsafe.Sizeof(SiteSlot{})
	_ = unsafe.Sizeof(SiteSlot{}) - slotSize
	_ = uint(framePCsLen-6) + uint(6-framePCsLen)
)

// Stack returns s's stack; nil for a nil slot.
func (s *SiteSlot) Stack() []gpu.Site {
	if s == nil {
		return nil
	}
	return s.stack
}

// BareSlot returns the slot of site alone, with no path or stack: for
// records whose call path was not cached.
func (c *Sites) BareSlot(site gpu.Site) *SiteSlot {
	if v, ok := c.bare.Load(site); ok {
		return v.(*SiteSlot)
	}
	c.ids.mu.Lock()
	defer c.ids.mu.Unlock()
	if v, ok := c.bare.Load(site); ok {
		return v.(*SiteSlot)
	}
	s := &SiteSlot{site: site}
	c.ids.number(s)
	c.bare.Store(site, s)
	return s
}

// Of returns the kernel site of the access t is making now, and the cache
// slot of its call path (nil when not cached). It must be called on t's
// own flow, from within an Observer method, as Caller must. The hot path,
// an Observer's Access, walks its own frame's path and asks Lookup, one
// call and one frame fewer.
//
//go:noinline
func (c *Sites) Of(t *gpu.Thread) (gpu.Site, *SiteSlot) {
	var key PathKey
	n, h := callsite.Walk(&key)
	return c.Lookup(t, &key, n, h)
}

// Lookup returns the kernel site and the cache slot (nil when not
// cached) of the call path of the access t is making now, whose key a
// callsite.Walk from t's flow stored, n addresses that hashed to h. A
// collision costs a lookup under a lock, never a wrong site.
func (c *Sites) Lookup(t *gpu.Thread, key *PathKey, n int, h uint64) (gpu.Site, *SiteSlot) {
	if n < 3 {
		return t.Caller(), nil
	}
	slot := &c.slots[slotOf(h, slotBits)]
	if s := slot.Load(); s != nil {
		// s is the slot of key: the words are compared one at a time,
		// since Walk has just stored them a word at a time, and a wider
		// load of those stores (as an array comparison makes) waits
		// for them to reach the cache instead of reading them from the
		// store buffer.
		k := &s.key
		if (k[0]^key[0])|(k[1]^key[1])|(k[2]^key[2])|(k[3]^key[3])|
			(k[4]^key[4])|(k[5]^key[5]) == 0 {
			return c.resolved(t, s)
		}
	}
	return c.miss(t, key, slot)
}

// miss resolves the call path of key, which slot does not hold, and
// caches it there unless its key does not determine its site. A path
// seen before keeps its slot; a new one is resolved outside the lock, so
// that threads missing at once do not queue on gpu.Thread.Caller.
//
//go:noinline
func (c *Sites) miss(t *gpu.Thread, key *PathKey, slot *atomic.Pointer[SiteSlot]) (gpu.Site, *SiteSlot) {
	if s := c.ids.keyedSlot(key); s != nil {
		slot.Store(s)
		return c.resolved(t, s)
	}
	site := t.Caller()
	frames := keyFrames(key)
	if !holds(frames, site) {
		slot.Store(c.ids.keep(&SiteSlot{key: *key, open: true}))
		return site, nil
	}
	s := &SiteSlot{key: *key, site: site}
	if c.Stacks {
		s.stack = heldStack(frames, t.CallerStack(stackDepth))
	}
	s = c.ids.keep(s)
	slot.Store(s)
	return s.site, s
}

// slotOf returns the slot, of a table of 1<<bits, of a path that a walk
// hashed to h: callsite's hash folds the addresses as it walks them, and
// one multiply makes the top bits, which pick the slot, depend on every
// address.
func slotOf(h uint64, bits int) uint64 { return h * 0x9e3779b97f4a7c15 >> (64 - bits) }

// resolved returns the site and slot of an access whose path's key is
// s's: s's own, or for an open key the site its longer key names (see
// openSite) and no slot.
func (c *Sites) resolved(t *gpu.Thread, s *SiteSlot) (gpu.Site, *SiteSlot) {
	if s.open {
		return c.openSite(t), nil
	}
	return s.site, s
}

// openSite returns the site of an access whose key is open: the site
// cached for its first callsite.LongLen return addresses, which reach
// the kernel's frame from as deep as a report is made, or else the one
// gpu.Thread.Caller finds, cached when those addresses name it. A slot
// holds the last long path that hashed to it; a path that hashes to
// another's slot is resolved again, never given the other's site.
//
//go:noinline
func (c *Sites) openSite(t *gpu.Thread) gpu.Site {
	var key [callsite.LongLen]uintptr
	n, h := callsite.WalkLong(&key)
	if n < 3 {
		return t.Caller()
	}
	slot := &c.long[slotOf(h, longBits)]
	if s := slot.Load(); s != nil && s.key == key {
		if s.site.IsZero() {
			return t.Caller()
		}
		return s.site
	}
	site := t.Caller()
	named := site
	if !holds(framesOf(key[:n]), site) {
		named = gpu.Site{}
	}
	slot.Store(&longSlot{key: key, site: named})
	return site
}

// keyFrames resolves the frames of key.
func keyFrames(key *PathKey) []runtime.Frame { return framesOf(key[:]) }

// framesOf resolves the frames of the return addresses pcs, up to the
// first zero.
func framesOf(key []uintptr) []runtime.Frame {
	pcs := make([]uintptr, 0, len(key)) // a copy: CallersFrames keeps it, which would move key to the heap
	for _, pc := range key {
		if pc == 0 {
			break
		}
		pcs = append(pcs, pc)
	}
	var out []runtime.Frame
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		out = append(out, f)
		if !more {
			return out
		}
	}
}

// holds reports whether frames include site's frame. For the frames of
// a key it means the key determines the site: Caller picks the first
// kernel frame above the runtime's, and every frame up to it is in the key.
func holds(frames []runtime.Frame, site gpu.Site) bool {
	for _, f := range frames {
		if f.Line == site.Line() && f.File == site.File() && f.Function == site.Function() {
			return true
		}
	}
	return false
}

// heldStack returns the leading frames of stack that frames hold.
func heldStack(frames []runtime.Frame, stack []gpu.Site) []gpu.Site {
	for i, s := range stack {
		if !holds(frames, s) {
			return stack[:i]
		}
	}
	return stack
}

// Site returns s's site; the zero Site for a nil slot.
func (s *SiteSlot) Site() gpu.Site {
	if s == nil {
		return gpu.Site{}
	}
	return s.site
}

// StackOf returns the call stack of the access t makes now, whose call
// path's slot is path: the slot's, or, with Stacks and no stack cached,
// t's own. Without Stacks it is nil. t is nil when the access is checked
// off its thread (the central checker), and then the slot's stack is all
// there is.
func (c *Sites) StackOf(t *gpu.Thread, path *SiteSlot) []gpu.Site {
	if s := path.Stack(); s != nil || !c.Stacks || t == nil {
		return s
	}
	return t.CallerStack(stackDepth)
}
