package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// SegmentedReduce stores in out[s] op folded over init and the elements
// in[offsets[s]:offsets[s+1]], in order, for each of the offsets.Len()-1
// segments, CUB's DeviceSegmentedReduce::Reduce: init alone for an empty
// segment. out must hold a value per segment. A segment whose offsets are
// decreasing or reach past in fails the launch with an error naming it.
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
	return r.launch("reduce", segs, func(t *gpu.Thread) {
		if s := t.GlobalID(); s < segs {
			reduceSegment(t, in, offsets, out, s, init, op)
		}
	})
}

// reduceSegment is one thread's reduction of segment s.
func reduceSegment[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T], s int, init T, op func(a, b T) T) {
	lo, hi := int(offsets.Load(t, s)), int(offsets.Load(t, s+1))
	if lo < 0 || hi < lo || hi > in.Len() {
		panic(fmt.Sprintf("device.SegmentedReduce: segment %d is offsets[%d:%d] = [%d, %d); want 0 <= begin <= end <= %d, the length of in", s, s, s+2, lo, hi, in.Len()))
	}
	for i := lo; i < hi; i++ {
		init = op(init, in.Load(t, i))
	}
	out.Store(t, s, init)
}
