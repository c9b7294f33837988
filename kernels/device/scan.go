package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// InclusiveScan stores in out[i] op folded over in[0] to in[i]. out must
// hold at least in.Len() elements and may be in itself.
//
// It is reduce-then-scan: each block reduces its tile to a partial, the
// partials are scanned by the same algorithm (one block when they fit
// it), and each block scans its tile again from its predecessors'
// aggregate: threads fold their items, a block scan turns the folds into
// each thread's prefix, and each thread carries it through its items.
func InclusiveScan[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, out gpu.Buffer[T], op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.InclusiveScan")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := r.atLeast("out", out.Len(), in.Len()); err != nil {
		return err
	}
	return scan(r, in, out, nil, op)
}

// ExclusiveScan stores in out[i] op folded over init and in[0] to in[i-1]:
// init in out[0]. out must hold at least in.Len() elements and may be in
// itself. The algorithm is InclusiveScan's.
func ExclusiveScan[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.ExclusiveScan")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := r.atLeast("out", out.Len(), in.Len()); err != nil {
		return err
	}
	return scan(r, in, out, &init, op)
}

// scan is the exclusive scan from *init, or the inclusive one if init is
// nil.
func scan[T gpu.Elem](r *run, in, out gpu.Buffer[T], init *T, op func(a, b T) T) error {
	blocks := r.tiles(in.Len())
	if blocks == 0 {
		return nil
	}
	var carries gpu.Buffer[T]
	if blocks > 1 {
		carries = alloc[T](r, "partials", blocks)
		if err := r.launch("partials", blocks, reduceTiles(r, in, carries, op, nil)); err != nil {
			return err
		}
		if err := scan(r, carries, carries, init, op); err != nil {
			return err
		}
	}
	return r.launch("scan", blocks, scanTiles(r, in, out, carries, init, op))
}

// scanTiles returns the kernel that scans each block's tile from the
// block's carry: for an exclusive scan carries[b] (init for a lone
// block), for an inclusive one carries[b-1] (none for block 0).
func scanTiles[T gpu.Elem](r *run, in, out, carries gpu.Buffer[T], init *T, op func(a, b T) T) gpu.Kernel {
	tile := r.tile()
	return func(t *gpu.Thread) {
		var v [items]T
		var sum T
		n := loadTile(t, in, tile, &v)
		if n > 0 {
			sum = fold(&v, n, op)
		}
		prefix, ok, _ := block.Prefix(t, block.Temp[T](t, "scan"), sum, op)
		if c, has := carry(t, carries, init); has {
			prefix, ok = joined(c, prefix, ok, op), true
		}
		first := t.Block()*tile + t.Rank()*items
		if init != nil {
			storeExclusive(t, out, first, v[:n], prefix, op)
			return
		}
		storeInclusive(t, out, first, v[:n], prefix, ok, op)
	}
}

// carry returns the value that precedes t's block's tile, if any.
func carry[T gpu.Elem](t *gpu.Thread, carries gpu.Buffer[T], init *T) (T, bool) {
	switch b := t.Block(); {
	case init != nil && carries.Len() == 0:
		return *init, true
	case init != nil:
		return carries.Load(t, b), true
	case b > 0:
		return carries.Load(t, b-1), true
	}
	var zero T
	return zero, false
}

// joined returns op(c, prefix), or c if there is no prefix.
func joined[T gpu.Elem](c, prefix T, ok bool, op func(a, b T) T) T {
	if ok {
		return op(c, prefix)
	}
	return c
}

// storeExclusive stores the running fold from prefix before each item.
func storeExclusive[T gpu.Elem](t *gpu.Thread, out gpu.Buffer[T], first int, v []T, prefix T, op func(a, b T) T) {
	for j, x := range v {
		out.Store(t, first+j, prefix)
		prefix = op(prefix, x)
	}
}

// storeInclusive stores the running fold from prefix (none if !ok)
// through each item.
func storeInclusive[T gpu.Elem](t *gpu.Thread, out gpu.Buffer[T], first int, v []T, prefix T, ok bool, op func(a, b T) T) {
	for j, x := range v {
		if ok {
			prefix = op(prefix, x)
		} else {
			prefix, ok = x, true
		}
		out.Store(t, first+j, prefix)
	}
}
