package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
)

// Select copies the elements of in for which pred holds to the front of
// out, in their order, and returns how many it copied, CUB's
// DeviceSelect::If. out must hold them; if it is too short, Select
// returns an error naming both lengths and writes nothing to out. pred runs
// inside kernels, twice per element, and must be free of side effects.
//
// Each block counts its tile's selected elements, an exclusive scan of the
// counts gives each tile its first place, and each block scatters its tile
// after a block scan of its threads' counts.
func Select[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, out gpu.Buffer[T], pred func(T) bool) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.Select")
	if err != nil || in.Len() == 0 {
		return 0, err
	}
	f := func(t *gpu.Thread, i int) bool { return pred(in.Load(t, i)) }
	offsets, total, err := flagged(r, in.Len(), f)
	if err != nil {
		return 0, err
	}
	if err := r.atLeast("out", out.Len(), total); err != nil {
		return 0, err
	}
	return total, scatter(r, in.Len(), offsets, f, func(t *gpu.Thread, i, before int, sel bool) {
		if sel {
			out.Store(t, before, in.Load(t, i))
		}
	})
}

// Partition copies the elements of in for which pred holds to the front
// of out and the others after them, each side in its order (CUB's
// DevicePartition::If reverses the second), and returns how many hold.
// out must be as long as in. pred runs as for [Select], and the algorithm
// is Select's.
func Partition[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, out gpu.Buffer[T], pred func(T) bool) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.Partition")
	if err != nil {
		return 0, err
	}
	if err := r.same("in", in.Len(), "out", out.Len()); err != nil || in.Len() == 0 {
		return 0, err
	}
	f := func(t *gpu.Thread, i int) bool { return pred(in.Load(t, i)) }
	offsets, total, err := flagged(r, in.Len(), f)
	if err != nil {
		return 0, err
	}
	return total, scatter(r, in.Len(), offsets, f, func(t *gpu.Thread, i, before int, sel bool) {
		if !sel {
			before = total + i - before // the rejected before i come after every selected one
		}
		out.Store(t, before, in.Load(t, i))
	})
}
