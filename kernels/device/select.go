package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// Select copies the elements of in for which pred holds to the front of
// out, in their order, and returns how many it copied, CUB's
// DeviceSelect::If. out must hold them; if it is too short, Select
// returns an error naming both lengths and writes nothing to out. out must
// not share memory with in, and pred must not be nil: Select returns an
// error saying so. pred runs
// inside kernels, twice per element, and must be free of side effects.
//
// Each thread counts the selected among its items, an exclusive scan of
// the counts gives each thread its first place, and each thread copies
// its selected items from there, loading each element once a launch.
func Select[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, out gpu.Buffer[T], pred func(T) bool) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.Select")
	if err == nil {
		err = selectArgs(r, in, out, pred)
	}
	if err != nil || in.Len() == 0 {
		return 0, err
	}
	fl := predicate(in, pred)
	offsets, total, err := flagged(r, fl)
	if err != nil {
		return 0, err
	}
	if err := r.atLeast("out", out.Len(), total); err != nil {
		return 0, err
	}
	return total, scatter(r, fl, offsets, func(t *gpu.Thread, _, before int, x T, sel bool) {
		if sel {
			out.Store(t, before, x)
		}
	})
}

// Partition copies the elements of in for which pred holds to the front
// of out and the others after them, each side in its order (CUB's
// DevicePartition::If reverses the second), and returns how many hold.
// out must be as long as in and, as for [Select], not share memory with
// it. pred runs as for Select, and the algorithm is Select's.
func Partition[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, out gpu.Buffer[T], pred func(T) bool) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.Partition")
	if err == nil {
		err = selectArgs(r, in, out, pred)
	}
	if err != nil {
		return 0, err
	}
	if err := r.same("in", in.Len(), "out", out.Len()); err != nil || in.Len() == 0 {
		return 0, err
	}
	fl := predicate(in, pred)
	offsets, total, err := flagged(r, fl)
	if err != nil {
		return 0, err
	}
	return total, scatter(r, fl, offsets, func(t *gpu.Thread, i, before int, x T, sel bool) {
		if !sel {
			before = total + i - before // the rejected before i come after every selected one
		}
		out.Store(t, before, x)
	})
}

// selectArgs returns an error naming what is wrong with Select's or
// Partition's arguments: a nil pred, or an out that shares memory with in,
// whose elements the copies would overwrite before other threads read them.
func selectArgs[T gpu.Elem](r *run, in, out gpu.Buffer[T], pred func(T) bool) error {
	if pred == nil {
		return fmt.Errorf("%s: pred is nil (called at %s)", r.fn, r.caller)
	}
	return r.apart(argOf("in", in), argOf("out", out))
}

// predicate returns the flag that selects the elements of in for which
// pred holds.
func predicate[T gpu.Elem](in gpu.Buffer[T], pred func(T) bool) flag[T] {
	return flag[T]{in: in, sel: func(_ int, x, _ T) bool { return pred(x) }}
}
