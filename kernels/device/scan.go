package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
)

// InclusiveScan stores in out[i] op folded over in[0] to in[i]. out must
// hold at least in.Len() elements and may be in itself, from the same
// first element; it must share no other memory with in.
//
// It is reduce-then-scan: each thread folds its items to a partial, the
// partials, items times fewer, are scanned by the same algorithm (by one
// thread when they fit it), and each thread scans its items again from
// its predecessors' aggregate, the partial scanned before its own.
func InclusiveScan[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, out gpu.Buffer[T], op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.InclusiveScan")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := scanArgs(r, in, out); err != nil {
		return err
	}
	return scan(r, in, out, nil, op)
}

// ExclusiveScan stores in out[i] op folded over init and in[0] to in[i-1]:
// init in out[0]. out must hold at least in.Len() elements and may be in
// itself, as for [InclusiveScan]. The algorithm is InclusiveScan's.
func ExclusiveScan[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.ExclusiveScan")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := scanArgs(r, in, out); err != nil {
		return err
	}
	return scan(r, in, out, &init, op)
}

// scanArgs returns an error naming what is wrong with a scan's in and out:
// an out shorter than in, or one that shares memory with in other than
// being in itself, from its first element.
func scanArgs[T gpu.Elem](r *run, in, out gpu.Buffer[T]) error {
	if err := r.atLeast("out", out.Len(), in.Len()); err != nil {
		return err
	}
	return r.inPlaceOrApart(argOf("in", in), argOf("out", out))
}

// scan is the exclusive scan from *init, or the inclusive one if init is
// nil.
func scan[T gpu.Elem](r *run, in, out gpu.Buffer[T], init *T, op func(a, b T) T) error {
	threads := spans(in.Len())
	if threads == 0 {
		return nil
	}
	var carries gpu.Buffer[T]
	if threads > 1 {
		carries = alloc[T](r, "partials", threads)
		if err := r.launch("partials", threads, partialsKernel(in, carries, op)); err != nil {
			return err
		}
		if err := scan(r, carries, carries, init, op); err != nil {
			return err
		}
	}
	return r.launch("scan", threads, scanKernel(in, out, carries, init, op))
}

// scanKernel returns the kernel whose threads scan their items from their
// carries: for an exclusive scan carries[g] (init for a lone thread), for
// an inclusive one carries[g-1] (none for thread 0).
func scanKernel[T gpu.Elem](in, out, carries gpu.Buffer[T], init *T, op func(a, b T) T) gpu.Kernel {
	return func(t *gpu.Thread) {
		lo, hi := span(t, in.Len())
		if lo == hi {
			return
		}
		c, has := carry(t, carries, init)
		if init != nil {
			storeExclusive(t, in, out, lo, hi, c, op)
			return
		}
		storeInclusive(t, in, out, lo, hi, c, has, op)
	}
}

// carry returns the value that precedes t's items, if any.
func carry[T gpu.Elem](t *gpu.Thread, carries gpu.Buffer[T], init *T) (T, bool) {
	switch g := t.GlobalID(); {
	case init != nil && carries.Len() == 0:
		return *init, true
	case init != nil:
		return carries.Load(t, g), true
	case g > 0:
		return carries.Load(t, g-1), true
	}
	var zero T
	return zero, false
}

// storeExclusive stores at out[i], for i in [lo, hi), the running fold
// from prefix before in[i]. Each in[i] is loaded before out[i] is stored,
// so out may be in.
func storeExclusive[T gpu.Elem](t *gpu.Thread, in, out gpu.Buffer[T], lo, hi int, prefix T, op func(a, b T) T) {
	for i := lo; i < hi; i++ {
		x := in.Load(t, i)
		out.Store(t, i, prefix)
		prefix = op(prefix, x)
	}
}

// storeInclusive stores at out[i], for i in [lo, hi), the running fold
// from prefix (none if !ok) through in[i]; out may be in.
func storeInclusive[T gpu.Elem](t *gpu.Thread, in, out gpu.Buffer[T], lo, hi int, prefix T, ok bool, op func(a, b T) T) {
	if !ok {
		prefix, lo = in.Load(t, lo), lo+1
		out.Store(t, lo-1, prefix)
	}
	for i := lo; i < hi; i++ {
		prefix = op(prefix, in.Load(t, i))
		out.Store(t, i, prefix)
	}
}
