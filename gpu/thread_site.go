package gpu

import (
	"runtime"
	"strings"
)

// errorSite returns the kernel line a thread ended at abnormally, called
// from the deferred recover at its root while the ending stack is still
// there. r is the recovered value, nil for runtime.Goexit. For an error
// the runtime raised (an index out of range, a misused operation) it is
// the line that called the runtime; for a panic in kernel code, the line
// that panicked; for runtime.Goexit, the kernel's line whose call led to
// it (through testing.T.FailNow, say).
func (l *launch) errorSite(r any) Site {
	switch r := r.(type) {
	case abort:
		if !r.site.IsZero() {
			return r.site
		}
		return l.panicSite()
	case *fault:
		if !r.site.IsZero() {
			return r.site
		}
		return l.panicSite()
	}
	var pcs [64]uintptr
	n := runtime.Callers(1, pcs[:])
	if r == nil {
		return l.outermostSite(pcs[:n])
	}
	i := frameOf(pcs[:n], "runtime.gopanic")
	if i < 0 {
		return Site{}
	}
	return l.panicFrame(runtime.CallersFrames(pcs[i+1 : n]))
}

// panicFrame returns the site of a panic whose frames, from the
// panicking one out, are frames: the first frame of kernel code, past
// Go's runtime and this package (a kernel's misuse of the runtime, as a
// Slice out of bounds, panics in the runtime's code), or else the first
// of this package's or of package iter's, where no kernel frame is on
// the stack.
func (l *launch) panicFrame(frames *runtime.Frames) Site {
	var first Site
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "" || strings.HasPrefix(fr.Function, "runtime."):
		case strings.HasPrefix(fr.Function, pkgPrefix) || strings.HasPrefix(fr.Function, "iter."):
			if first.IsZero() {
				first = l.d.sites.frame(fr)
			}
		default:
			return l.d.sites.frame(fr)
		}
		if !more {
			return first
		}
	}
}

// outermostSite returns, below runtime.Goexit, the last frame before the
// runtime's own frames that called the kernel: the kernel's line.
func (l *launch) outermostSite(pcs []uintptr) Site {
	i := frameOf(pcs, "runtime.Goexit")
	if i < 0 {
		return Site{}
	}
	frames := runtime.CallersFrames(pcs[i+1:])
	var last runtime.Frame
	for {
		fr, more := frames.Next()
		if strings.HasPrefix(fr.Function, pkgPrefix) {
			break
		}
		last = fr
		if !more {
			break
		}
	}
	if last.Function == "" {
		return Site{}
	}
	return l.d.sites.frame(last)
}
