package device

import (
	"context"
	"fmt"
	"runtime"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/modpath"
)

// items is the number of consecutive elements each thread of the
// primitives handles, folded, counted or scanned in Go locals: CUB's items
// per thread, at its largest, so a launch runs one thread per items
// elements.
//
// The primitives combine the threads' values through a launch boundary
// rather than a warp or block collective: a thread stores its value at its
// global index in a scratch buffer, and the next launch, items times
// smaller, treats those values as its input. In the emulator a thread
// that waits at a collective moves to a coroutine, which costs more than
// folding its items; a barrier-free thread is a function call, and a
// launch boundary synchronizes every thread at once.
const items = 32

// defaultThreads is the block size when LaunchConfig.Block.X is zero.
const defaultThreads = 256

// A run is one primitive's call: what each of its launches starts from.
type run struct {
	ctx     context.Context
	d       *gpu.Device
	cfg     gpu.LaunchConfig
	fn      string // the primitive, such as "device.Reduce", for names and errors
	caller  string // the line that called the primitive, as "pkg/x_test.go:12"
	threads int
}

// newRun checks what every primitive needs: a device and a block size
// within its limits. It must be called by the exported primitive itself,
// whose caller's line it records.
func newRun(ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, fn string) (*run, error) {
	if d == nil {
		return nil, fmt.Errorf("%s: nil *gpu.Device", fn)
	}
	threads := cfg.Block.X
	if threads == 0 {
		threads = defaultThreads
	}
	if limit := d.Config().MaxThreadsPerBlock; threads < 1 || threads > limit {
		return nil, fmt.Errorf("%s: LaunchConfig.Block.X is %d; want 1 to %d threads", fn, threads, limit)
	}
	return &run{ctx: ctx, d: d, cfg: cfg, fn: fn, caller: callerLine(2), threads: threads}, nil
}

// callerLine returns the file:line skip frames up from its caller (0 is
// the caller), its file relative to its module's root as gpu.Site.String
// writes it, or "an unknown line".
func callerLine(skip int) string {
	var pc [1]uintptr
	if runtime.Callers(skip+2, pc[:]) == 0 {
		return "an unknown line"
	}
	f, _ := runtime.CallersFrames(pc[:]).Next()
	return fmt.Sprintf("%s:%d", modpath.Rel(f.File, f.Function), f.Line)
}

// needOp returns an error naming the line that called the primitive if
// op is nil, which would otherwise fault in every thread of its first
// launch, at a line of this package.
func needOp[T gpu.Elem](r *run, op func(a, b T) T) error {
	if op == nil {
		return fmt.Errorf("%s: op is nil (called at %s)", r.fn, r.caller)
	}
	return nil
}

// spans returns the threads that cover n elements, items apiece.
func spans(n int) int { return (n + items - 1) / items }

// span returns the elements [lo, hi) of an n-element input that thread t
// handles: empty for a thread past the end.
func span(t *gpu.Thread, n int) (lo, hi int) {
	lo = min(t.GlobalID()*items, n)
	return lo, min(lo+items, n)
}

// launch runs k over enough blocks of the run's threads for threads
// threads, named after the primitive and step; the surplus threads of the
// last block must check their GlobalID.
func (r *run) launch(step string, threads int, k gpu.Kernel) error {
	cfg := r.cfg
	cfg.Name = r.fn + "/" + step
	cfg.Grid = gpu.Dim3{X: (threads + r.threads - 1) / r.threads}
	cfg.Block = gpu.Dim3{X: r.threads}
	cfg.DynamicShared, cfg.Cooperative = 0, false
	return r.d.Launch(r.ctx, cfg, k)
}

// alloc allocates a scratch buffer named after the primitive.
func alloc[T gpu.Elem](r *run, name string, n int) gpu.Buffer[T] {
	return gpu.Alloc[T](r.d, r.fn+" "+name, n)
}

// atLeast returns an error naming arg unless its buffer holds need
// elements.
func (r *run) atLeast(arg string, has, need int) error {
	if has < need {
		return fmt.Errorf("%s: %s has length %d; it needs at least %d", r.fn, arg, has, need)
	}
	return nil
}

// same returns an error naming both arguments unless their lengths agree.
func (r *run) same(a string, na int, b string, nb int) error {
	if na != nb {
		return fmt.Errorf("%s: %s has length %d but %s has length %d; they must agree", r.fn, a, na, b, nb)
	}
	return nil
}

// foldSpan returns op folded over in[lo:hi], lo < hi, in a Go local.
func foldSpan[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], lo, hi int, op func(a, b T) T) T {
	acc := in.Load(t, lo)
	for i := lo + 1; i < hi; i++ {
		acc = op(acc, in.Load(t, i))
	}
	return acc
}

// An arg is a buffer argument of a primitive, by name, for the checks
// that two arguments do not share memory.
type arg struct {
	name   string
	m      *gpu.Memory
	lo, hi int // the elements of m it views
}

// argOf names buffer b as the argument name.
func argOf[T gpu.Elem](name string, b gpu.Buffer[T]) arg {
	return arg{name: name, m: b.Memory(), lo: b.Offset(), hi: b.Offset() + b.Len()}
}

// overlaps reports whether a and b view an element in common.
func (a arg) overlaps(b arg) bool {
	return a.m != nil && a.m == b.m && a.lo < b.hi && b.lo < a.hi
}

// apart returns an error naming both arguments if they share an element:
// a primitive that reads one while it writes the other would read what
// its own threads overwrite, in no defined order.
func (r *run) apart(a, b arg) error {
	if !a.overlaps(b) {
		return nil
	}
	return fmt.Errorf("%s: %s and %s overlap (elements %d-%d and %d-%d of %v); they must not share memory (called at %s)",
		r.fn, a.name, b.name, a.lo, a.hi-1, b.lo, b.hi-1, a.m, r.caller)
}

// inPlaceOrApart is apart for an output that may also be the input
// itself, the same elements from the same first one.
func (r *run) inPlaceOrApart(in, out arg) error {
	if in.m == out.m && in.lo == out.lo {
		return nil
	}
	return r.apart(in, out)
}
