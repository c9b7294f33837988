package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// SegmentedReduce stores in out[s] op folded over init and the elements
// in[offsets[s]:offsets[s+1]], in order, for each of the offsets.Len()-1
// segments, CUB's DeviceSegmentedReduce::Reduce: init alone for an empty
// segment. out must hold a value per segment and share memory with neither in nor
// offsets. A segment whose offsets are decreasing or reach past in is an
// error naming it, found on the host before anything is launched.
//
// Each thread folds one segment in a Go local, as a sequential loop does,
// so segments need not be aligned to anything and cost no collective; a
// long segment keeps its thread long.
func SegmentedReduce[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T], init T, op func(a, b T) T) error {
	r, err := newRun(ctx, d, cfg, "device.SegmentedReduce")
	if err != nil {
		return err
	}
	if err := needOp(r, op); err != nil {
		return err
	}
	if err := r.atLeast("offsets", offsets.Len(), 1); err != nil {
		return err
	}
	segs := offsets.Len() - 1
	if err := r.atLeast("out", out.Len(), segs); err != nil || segs == 0 {
		return err
	}
	if err := segmentArgs(r, in, offsets, out); err != nil {
		return err
	}
	return r.launch("reduce", segs, func(t *gpu.Thread) {
		if s := t.GlobalID(); s < segs {
			reduceSegment(t, in, offsets, out, s, init, op)
		}
	})
}

// segmentArgs returns an error naming what is wrong with SegmentedReduce's
// arguments: an out that shares memory with in or offsets, or the first
// segment whose offsets are decreasing or reach past in, read on the host
// before any launch.
func segmentArgs[T gpu.Elem](r *run, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T]) error {
	if err := r.apart(argOf("in", in), argOf("out", out)); err != nil {
		return err
	}
	if err := r.apart(argOf("offsets", offsets), argOf("out", out)); err != nil {
		return err
	}
	off := offsets.Host()
	for s := range len(off) - 1 {
		if lo, hi := int(off[s]), int(off[s+1]); lo < 0 || hi < lo || hi > in.Len() {
			return fmt.Errorf("%s: %s (called at %s)", r.fn, badSegment(s, lo, hi, in.Len()), r.caller)
		}
	}
	return nil
}

// badSegment describes segment s, [lo, hi) of an input of n elements,
// whose offsets are decreasing or reach past the input.
func badSegment(s, lo, hi, n int) string {
	return fmt.Sprintf("segment %d is offsets[%d:%d] = [%d, %d); want 0 <= begin <= end <= %d, the length of in", s, s, s+2, lo, hi, n)
}

// reduceSegment is one thread's reduction of segment s.
func reduceSegment[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T], s int, init T, op func(a, b T) T) {
	lo, hi := int(offsets.Load(t, s)), int(offsets.Load(t, s+1))
	if lo < 0 || hi < lo || hi > in.Len() {
		// offsets changed since segmentArgs read them: a launch beside
		// this one wrote them.
		panic("device.SegmentedReduce: " + badSegment(s, lo, hi, in.Len()))
	}
	for i := lo; i < hi; i++ {
		init = op(init, in.Load(t, i))
	}
	out.Store(t, s, init)
}
