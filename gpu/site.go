package gpu

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// pkgPrefix prefixes the names of this package's functions in stack frames.
const pkgPrefix = "github.com/warpguard/warpguard/gpu."

// A Site is a source location in kernel code: the line that made an access
// or reached a barrier. The zero Site is unknown. Sites are comparable and
// interned per device, so equal locations compare equal.
type Site struct{ f *siteFrame }

type siteFrame struct {
	file, function string
	line           int
}

// File returns the site's file path, or "" if unknown.
func (s Site) File() string {
	if s.f == nil {
		return ""
	}
	return s.f.file
}

// Line returns the site's line, or 0 if unknown.
func (s Site) Line() int {
	if s.f == nil {
		return 0
	}
	return s.f.line
}

// Function returns the fully qualified name of the site's function.
func (s Site) Function() string {
	if s.f == nil {
		return ""
	}
	return s.f.function
}

// IsZero reports whether the site is unknown.
func (s Site) IsZero() bool { return s.f == nil }

// String returns "file:line", or "?" if the site is unknown. The file is
// written as [Site.ModuleFile] gives it, relative to the root of its Go
// module, such as "race/racetest/example_test.go:31": every error,
// stall listing and race report names a line so, the same on every
// machine and checkout, and unambiguous where a base name is not.
func (s Site) String() string {
	if s.f == nil {
		return "?"
	}
	return fmt.Sprintf("%s:%d", s.ModuleFile(), s.f.line)
}

// Caller returns the kernel source line that called into the runtime on
// the way to the current call: called from an Observer method, the line of
// the access, fence or barrier being observed. It unwinds the stack with
// runtime.Callers, so observers call it only when they keep history.
func (t *Thread) Caller() Site {
	var pcs stack
	runtime.Callers(2, pcs[:])
	return t.blk.l.d.sites.lookup(&pcs)
}

// stack is a fixed-size call stack, usable as a map key. Sixteen frames
// reach from an observer's method, through the runtime, to the kernel;
// fewer frames make the walk cheaper.
type stack [16]uintptr

// siteCache interns the Site of each distinct call stack, and each
// distinct source location, so that equal locations give equal Sites.
type siteCache struct {
	mu      sync.RWMutex
	m       map[stack]Site
	returns map[callSite]Site
	lines   map[siteFrame]Site
}

// lookupReturn returns the Site of a callSite: its first frame, the kernel
// line that called the runtime.
func (c *siteCache) lookupReturn(cs callSite) Site {
	c.mu.RLock()
	s, ok := c.returns[cs]
	c.mu.RUnlock()
	if ok {
		return s
	}
	fr, _ := runtime.CallersFrames(cs[:1]).Next()
	f := siteFrame{file: fr.File, line: fr.Line, function: fr.Function}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if fr.Function != "" {
		s = c.intern(f)
	}
	c.returns[cs] = s
	return s
}

func (c *siteCache) init() {
	if c.m == nil {
		c.m, c.returns, c.lines = make(map[stack]Site), make(map[callSite]Site), make(map[siteFrame]Site)
	}
}

// frame returns the interned Site of a resolved stack frame.
func (c *siteCache) frame(fr runtime.Frame) Site {
	return c.interned(siteFrame{file: fr.File, line: fr.Line, function: fr.Function})
}

// interned returns the interned Site of location f.
func (c *siteCache) interned(f siteFrame) Site {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	return c.intern(f)
}

// intern returns the Site of location f. Preconditions: c.mu held.
func (c *siteCache) intern(f siteFrame) Site {
	s, ok := c.lines[f]
	if !ok {
		s = Site{&f}
		c.lines[f] = s
	}
	return s
}

func (c *siteCache) lookup(pcs *stack) Site {
	c.mu.RLock()
	s, ok := c.m[*pcs]
	c.mu.RUnlock()
	if ok {
		return s
	}
	f, ok := resolve(pcs[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	if ok {
		s = c.intern(f)
	}
	c.m[*pcs] = s
	return s
}

// resolve finds the first frame past this package's frames: the kernel
// code that called the runtime. Frames above them belong to the observer.
func resolve(pcs []uintptr) (siteFrame, bool) {
	frames := runtime.CallersFrames(pcs)
	inPkg := false
	for {
		fr, more := frames.Next()
		switch {
		case strings.HasPrefix(fr.Function, pkgPrefix):
			inPkg = true
		case inPkg && fr.Function != "":
			return siteFrame{file: fr.File, line: fr.Line, function: fr.Function}, true
		}
		if !more {
			return siteFrame{}, false
		}
	}
}
