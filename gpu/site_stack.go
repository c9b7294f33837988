package gpu

import (
	"runtime"
	"strings"
)

// CallerStack returns at most n frames of the kernel's call stack at the
// current call, innermost first: the site Caller returns, then the kernel
// lines that led to it, up to the kernel function itself. The runtime's
// frames, and the observer's above them, are left out. Like Caller it
// must be called from an Observer method; it walks and resolves the
// stack, so an observer calls it once per call path and keeps the result.
func (t *Thread) CallerStack(n int) []Site {
	var pcs [64]uintptr
	k := runtime.Callers(2, pcs[:])
	return t.blk.l.d.sites.stack(pcs[:k], n)
}

// stack returns the interned sites of at most n kernel frames of pcs: the
// frames after the first run of this package's frames, up to the next
// frame of this package (the runtime calling the kernel).
func (c *siteCache) stack(pcs []uintptr, n int) []Site {
	var out []Site
	frames := runtime.CallersFrames(pcs)
	inPkg := false
	for len(out) < n {
		fr, more := frames.Next()
		ours := strings.HasPrefix(fr.Function, pkgPrefix)
		switch {
		case ours && len(out) > 0:
			return out
		case ours:
			inPkg = true
		case inPkg && fr.Function != "":
			out = append(out, c.frame(fr))
		}
		if !more {
			break
		}
	}
	return out
}
