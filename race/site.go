package race

import (
	"runtime"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/callsite"
)

// framePCsLen is how many return addresses key a site: enough to reach
// past the runtime's frames to the kernel's.
const framePCsLen = callsite.WalkLen

// siteSlots is the size of the site cache, a power of two.
const siteSlots = 4096

// sites caches the kernel site of each call path. gpu.Thread.Caller walks
// the whole stack and interns it, which costs more than a check; the
// cache keys a site by the return addresses of
// the first frames above the detector, read through frame pointers, and
// reads it with one atomic load. A slot holds the last path that hashed
// to it; a collision costs a Caller call, never a wrong site.
type sites struct {
	slots [siteSlots]atomic.Pointer[siteSlot]
}

type siteSlot struct {
	key  [framePCsLen]uintptr
	site gpu.Site
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
	if !keyHolds(&key, site) {
		return site, nil
	}
	s := &siteSlot{key: key, site: site}
	slot.Store(s)
	return site, s
}

// keyHolds reports whether the frames of key include site's frame, so the
// key determines the site: Caller picks the first kernel frame above the
// runtime's, and every frame up to it is in the key.
func keyHolds(key *[framePCsLen]uintptr, site gpu.Site) bool {
	pcs := make([]uintptr, 0, framePCsLen) // a copy: CallersFrames keeps it, which would move key to the heap
	for _, pc := range key {
		if pc != 0 {
			pcs = append(pcs, pc)
		}
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Line == site.Line() && f.File == site.File() && f.Function == site.Function() {
			return true
		}
		if !more {
			return false
		}
	}
}
