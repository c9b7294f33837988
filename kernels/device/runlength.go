package device

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
)

// RunLengthEncode finds the runs of equal consecutive elements of in,
// CUB's DeviceRunLengthEncode::Encode: it stores each run's value in
// unique and its length in counts, in order, and returns the number of
// runs. unique and counts must hold them; if either is too short it
// returns an error naming the lengths and writes nothing to them. They may
// share memory neither with in nor with each other.
// Elements compare with ==, so every NaN is a run of its own.
//
// An element starts a run if it is the first or differs from the one
// before it; the starts are counted and placed as by [Select]. The thread
// that places a run's start stores its length too: the distance to the
// next start among its items, or for its last run, found by reading on
// past its items until the value changes. Those tails are disjoint, so
// every element is read at most once more.
func RunLengthEncode[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in, unique gpu.Buffer[T], counts gpu.Buffer[int32]) (int, error) {
	r, err := newRun(ctx, d, cfg, "device.RunLengthEncode")
	if err == nil {
		err = r.apart(argOf("in", in), argOf("unique", unique))
	}
	if err == nil {
		err = r.apart(argOf("in", in), argOf("counts", counts))
	}
	if err == nil {
		err = r.apart(argOf("unique", unique), argOf("counts", counts))
	}
	if err != nil || in.Len() == 0 {
		return 0, err
	}
	fl := flag[T]{in: in, usePrev: true, sel: func(i int, x, prev T) bool { return i == 0 || x != prev }}
	offsets, runs, err := flagged(r, fl)
	if err != nil {
		return 0, err
	}
	if err := r.atLeast("unique", unique.Len(), runs); err != nil {
		return 0, err
	}
	if err := r.atLeast("counts", counts.Len(), runs); err != nil {
		return 0, err
	}
	return runs, r.launch("scatter", spans(in.Len()), func(t *gpu.Thread) {
		if lo, hi := span(t, in.Len()); lo < hi {
			encodeRuns(t, fl, offsets, unique, counts, lo, hi)
		}
	})
}

// encodeRuns stores the runs that start in [lo, hi) at their places.
func encodeRuns[T gpu.Elem](t *gpu.Thread, fl flag[T], offsets gpu.Buffer[int32], unique gpu.Buffer[T], counts gpu.Buffer[int32], lo, hi int) {
	first := int(offsets.Load(t, t.GlobalID()))
	k, start := first-1, 0 // the place and index of the last run started here
	var last T
	fl.visit(t, lo, hi, func(i int, x T, head bool) {
		if !head {
			return
		}
		if k >= first {
			counts.Store(t, k, int32(i-start))
		}
		k, start, last = k+1, i, x
		unique.Store(t, k, x)
	})
	if k < first {
		return // no run starts here
	}
	end := hi
	for end < fl.in.Len() && fl.in.Load(t, end) == last {
		end++
	}
	counts.Store(t, k, int32(end-start))
}
