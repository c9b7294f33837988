package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// Reduce stores in out[0] op folded over init and every element of in, in
// index order: init alone if in is empty. Each block reduces a tile to one
// partial, and the partials are reduced the same way until one block
// holds them all.
func Reduce[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
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
	return reduce(r, in, out, init, op)
}

func reduce[T gpu.Elem](r *run, in, out gpu.Buffer[T], init T, op func(a, b T) T) error {
	if in.Len() == 0 {
		return r.launch("init", 1, func(t *gpu.Thread) {
			if t.Rank() == 0 {
				out.Store(t, 0, init)
			}
		})
	}
	blocks := r.tiles(in.Len())
	if blocks == 1 {
		return r.launch("reduce", 1, reduceTiles(r, in, out, op, &init))
	}
	partials := alloc[T](r, "partials", blocks)
	if err := r.launch("partials", blocks, reduceTiles(r, in, partials, op, nil)); err != nil {
		return err
	}
	return reduce(r, partials, out, init, op)
}

// reduceTiles returns the kernel that stores at out[b] op folded over
// block b's tile of in, and over *init first if init is not nil.
func reduceTiles[T gpu.Elem](r *run, in, out gpu.Buffer[T], op func(a, b T) T, init *T) gpu.Kernel {
	tile := r.tile()
	return func(t *gpu.Thread) {
		var v [items]T
		var sum T
		if n := loadTile(t, in, tile, &v); n > 0 {
			sum = fold(&v, n, op)
		}
		tmp := block.Temp[T](t, "partials")
		sum = block.ReducePartial(t, tmp, sum, validThreads(t.Block(), in.Len(), tile), op)
		if t.Rank() == 0 {
			if init != nil {
				sum = op(*init, sum)
			}
			out.Store(t, t.Block(), sum)
		}
	}
}
