package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/warp"
)

// SegmentedReduce stores in out[s] op folded over init and the elements
// in[offsets[s]:offsets[s+1]], in order, for each of the offsets.Len()-1
// segments, CUB's DeviceSegmentedReduce::Reduce: init alone for an empty
// segment. out must hold a value per segment. A segment whose offsets are
// decreasing or reach past in fails the launch with an error naming it.
//
// Each warp reduces one segment: its lanes fold consecutive runs of it and
// a warp scan combines the runs. Segments need not be aligned to anything.
func SegmentedReduce[T gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T], init T, op func(a, b T) T) error {
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
	ws := d.Config().WarpSize
	perBlock := (r.threads + ws - 1) / ws
	return r.launch("reduce", (segs+perBlock-1)/perBlock, func(t *gpu.Thread) {
		if s := t.GlobalWarp(); s < segs {
			reduceSegment(t, in, offsets, out, s, init, op)
		}
	})
}

// reduceSegment is one warp's reduction of segment s.
func reduceSegment[T gpu.Elem](t *gpu.Thread, in gpu.Buffer[T], offsets gpu.Buffer[int32], out gpu.Buffer[T], s int, init T, op func(a, b T) T) {
	lo, hi := int(offsets.Load(t, s)), int(offsets.Load(t, s+1))
	if lo < 0 || hi < lo || hi > in.Len() {
		panic(fmt.Sprintf("device.SegmentedReduce: segment %d is offsets[%d:%d] = [%d, %d); want 0 <= begin <= end <= %d, the length of in", s, s, s+2, lo, hi, in.Len()))
	}
	if lo == hi {
		if t.Lane() == 0 {
			out.Store(t, s, init)
		}
		return
	}
	g := t.Grid()
	lanes := min(g.WarpSize, g.BlockSize-t.Warp()*g.WarpSize)
	run := (hi - lo + lanes - 1) / lanes
	first := lo + t.Lane()*run
	var acc T
	if first < hi {
		acc = in.Load(t, first)
		for i := first + 1; i < min(first+run, hi); i++ {
			acc = op(acc, in.Load(t, i))
		}
	}
	// Lanes with a run are a prefix of the warp, so the inclusive scan at
	// the last of them is the segment's fold.
	acc = warp.InclusiveScan(t, acc, op)
	total := gpu.ShflSync(t, gpu.FullMask, acc, (hi-lo+run-1)/run-1, g.WarpSize)
	if t.Lane() == 0 {
		out.Store(t, s, op(init, total))
	}
}
