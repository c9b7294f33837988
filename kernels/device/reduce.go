package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
)

// Reduce stores in out[0] op folded over init and every element of in, in
// index order: init alone if in is empty. out must not share memory with
// in. Each thread folds its items to
// one partial, and the partials, items times fewer, are reduced the same
// way until one thread holds them all.
func Reduce[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.Reduce")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := r.atLeast("out", out.Len(), 1); err != nil {
		return err
	}
	if err := r.apart(argOf("in", in), argOf("out", out)); err != nil {
		return err
	}
	return reduce(r, in, out, init, op)
}

func reduce[T gpu.Elem](r *run, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
	if in.Len() <= items {
		return r.launch("reduce", 1, func(t *gpu.Thread) {
			if t.GlobalID() == 0 {
				out.Store(t, 0, foldFrom(t, in, init, op))
			}
		})
	}
	partials := alloc[T](r, "partials", spans(in.Len()))
	if err := r.launch("partials", partials.Len(), partialsKernel(in, partials, op)); err != nil {
		return err
	}
	return reduce(r, partials, out, init, op)
}

// foldFrom returns op folded over init and every element of in.
func foldFrom[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], init T, op func(a, b T) T) T {
	for i := range in.Len() {
		init = op(init, in.Load(t, i))
	}
	return init
}

// partialsKernel returns the kernel whose thread g stores at partials[g]
// op folded over its items of in.
func partialsKernel[T gpu.Elem](in, partials gpu.Buffer[T], op func(a, b T) T) gpu.Kernel {
	return func(t *gpu.Thread) {
		if lo, hi := span(t, in.Len()); lo < hi {
			partials.Store(t, t.GlobalID(), foldSpan(t, in, lo, hi, op))
		}
	}
}
