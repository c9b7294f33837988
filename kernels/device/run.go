package device

import (
	"context"
	"fmt"
	"runtime"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/modpath"
	"github.com/warpguard/warpguard/kernels/block"
)

// items is the number of elements each thread of the tile primitives
// handles, in the blocked arrangement: a thread's loop over its own items
// is cheaper than a thread per element.
const items = 8

// defaultThreads is the block size when Config.Block.X is zero.
const defaultThreads = 256

// A run is one primitive's call: what each of its launches starts from.
type run struct {
	ctx     context.Context
	d       *gpu.Device
	cfg     gpu.Config
	fn      string // the primitive, such as "device.Reduce", for names and errors
	caller  string // the line that called the primitive, as "pkg/x_test.go:12"
	threads int
}

// newRun checks what every primitive needs: a device and a block size
// within its limits. It must be called by the exported primitive itself,
// whose caller's line it records.
func newRun(ctx context.Context, d *gpu.Device, cfg gpu.Config, fn string) (*run, error) {
	if d == nil {
		return nil, fmt.Errorf("%s: nil *gpu.Device", fn)
	}
	threads := cfg.Block.X
	if threads == 0 {
		threads = defaultThreads
	}
	if limit := d.Config().MaxThreadsPerBlock; threads < 1 || threads > limit {
		return nil, fmt.Errorf("%s: Config.Block.X is %d; want 1 to %d threads", fn, threads, limit)
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

// tile returns the elements one block handles.
func (r *run) tile() int { return r.threads * items }

// tiles returns the blocks that cover n elements.
func (r *run) tiles(n int) int { return (n + r.tile() - 1) / r.tile() }

// launch runs k over blocks blocks of the run's threads, named after the
// primitive and step.
func (r *run) launch(step string, blocks int, k gpu.Kernel) error {
	cfg := r.cfg
	cfg.Name = r.fn + "/" + step
	cfg.Grid = gpu.Dim3{X: blocks}
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

// loadTile loads thread t's items of block b's tile of in, blocked, and
// returns how many exist.
func loadTile[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], tile int, v *[items]T) int {
	var zero T
	block.LoadBlocked(t, in, t.Block()*tile, v[:], zero)
	return max(0, min(items, in.Len()-t.Block()*tile-t.Rank()*items))
}

// fold returns op folded over v[:n], n ≥ 1.
func fold[T gpu.Elem](v *[items]T, n int, op func(a, b T) T) T {
	acc := v[0]
	for _, x := range v[1:n] {
		acc = op(acc, x)
	}
	return acc
}

// validThreads returns how many threads of block b hold items of an n
// element buffer cut into tiles.
func validThreads(b, n, tile int) int {
	return (min(tile, n-b*tile) + items - 1) / items
}
