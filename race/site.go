package race

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/callsite"
)

// framePCsLen is how many return addresses key a site: enough to reach
// past the runtime's frames to the kernel's.
const framePCsLen = callsite.WalkLen

// siteSlots is the size of the site cache, a power of two.
const siteSlots = 4096

// stackDepth bounds the kernel frames of a report's call stack.
const stackDepth = 4

// sites caches the kernel site of each call path. gpu.Thread.Caller walks
// the whole stack and interns it, which costs more than a check; the
// cache keys a site by the return addresses of the first frames above the
// detector, read through frame pointers, and reads it with one atomic
// load. A slot holds the last path that hashed to it; a collision costs a
// Caller call, never a wrong site. A slot is never changed once stored,
// and its store synchronizes before every load that observes it, so a
// thread that loads a slot sees its key, site and stack as written.
//
// With stacks set (history), a slot also holds the kernel frames of its
// path, those of its first stackDepth that the key holds: frames past the
// key could differ between paths that share it.
type sites struct {
	slots  [siteSlots]atomic.Pointer[siteSlot]
	stacks bool
	bare   sync.Map // gpu.Site -> *siteSlot: slots of sites with no cached path
}

// A siteSlot is the cache entry of one call path: the key that names the
// path, its kernel site and, with stacks, its kernel frames.
type siteSlot struct {
	key   [framePCsLen]uintptr
	site  gpu.Site
	stack []gpu.Site // with stacks: the path's kernel frames, innermost first
}

// stackOf returns s's stack; nil for a nil slot.
func (s *siteSlot) stackOf() []gpu.Site {
	if s == nil {
		return nil
	}
	return s.stack
}

// bareSlot returns the slot of site alone, with no path or stack: for
// records whose call path was not cached.
func (c *sites) bareSlot(site gpu.Site) *siteSlot {
	if v, ok := c.bare.Load(site); ok {
		return v.(*siteSlot)
	}
	v, _ := c.bare.LoadOrStore(site, &siteSlot{site: site})
	return v.(*siteSlot)
}

// of returns the kernel site of the access t is making now, and the cache
// slot of its call path (nil when not cached). It must be called directly
// by an Observer method, as Caller must.
//
//go:noinline
func (c *sites) of(t *gpu.Thread) (gpu.Site, *siteSlot) {
	var key [framePCsLen]uintptr
	if callsite.Walk(&key) < 3 {
		return t.Caller(), nil
	}
	h := uint64(17)
	for _, pc := range key {
		h = (h ^ uint64(pc)) * 0x100000001b3
	}
	slot := &c.slots[(h^h>>29)&(siteSlots-1)]
	if s := slot.Load(); s != nil && s.key == key {
		return s.site, s
	}
	site := t.Caller()
	frames := keyFrames(&key)
	if !holds(frames, site) {
		return site, nil
	}
	s := &siteSlot{key: key, site: site}
	if c.stacks {
		s.stack = heldStack(frames, t.CallerStack(stackDepth))
	}
	slot.Store(s)
	return site, s
}

// keyFrames resolves the frames of key.
func keyFrames(key *[framePCsLen]uintptr) []runtime.Frame {
	pcs := make([]uintptr, 0, framePCsLen) // a copy: CallersFrames keeps it, which would move key to the heap
	for _, pc := range key {
		if pc != 0 {
			pcs = append(pcs, pc)
		}
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

// siteOf returns s's site; the zero Site for a nil slot.
func (s *siteSlot) siteOf() gpu.Site {
	if s == nil {
		return gpu.Site{}
	}
	return s.site
}
