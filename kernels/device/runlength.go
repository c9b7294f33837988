package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
)

// RunLengthEncode finds the runs of equal consecutive elements of in,
// CUB's DeviceRunLengthEncode::Encode: it stores each run's value in
// unique and its length in counts, in order, and returns the number of
// runs. unique and counts must hold them; if either is too short it
// returns an error naming the lengths and writes nothing to them.
// Elements compare with ==, so every NaN is a run of its own.
//
// An element starts a run if it is the first or differs from the one
// before it; the starts are selected as by [Select], with their indices,
// and a last launch turns the indices into lengths, items runs a thread.
func RunLengthEncode[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in, unique gpu.Buffer[T], counts gpu.Buffer[int32]) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.RunLengthEncode")
	if err != nil || in.Len() == 0 {
		return 0, err
	}
	n := in.Len()
	head := func(t *gpu.Thread, i int) bool { return i == 0 || in.Load(t, i) != in.Load(t, i-1) }
	offsets, runs, err := flagged(r, n, head)
	if err != nil {
		return 0, err
	}
	if err := r.atLeast("unique", unique.Len(), runs); err != nil {
		return 0, err
	}
	if err := r.atLeast("counts", counts.Len(), runs); err != nil {
		return 0, err
	}
	starts := alloc[int32](r, "starts", runs+1)
	err = scatter(r, n, offsets, head, func(t *gpu.Thread, i, before int, sel bool) {
		if sel {
			unique.Store(t, before, in.Load(t, i))
			starts.Store(t, before, int32(i))
		}
		if i == n-1 {
			starts.Store(t, runs, int32(n))
		}
	})
	if err != nil {
		return 0, err
	}
	return runs, r.launch("lengths", spans(runs), func(t *gpu.Thread) {
		lo, hi := span(t, runs)
		if lo == hi {
			return
		}
		start := starts.Load(t, lo)
		for k := lo; k < hi; k++ {
			next := starts.Load(t, k+1)
			counts.Store(t, k, next-start)
			start = next
		}
	})
}
