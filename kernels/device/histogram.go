package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/scope"
)

// sharedBins is the most bins a block counts in shared memory; more are
// counted with device-scope atomics on hist directly.
const sharedBins = 2048

// HistogramEven counts the elements of in into hist.Len() bins of equal
// width over [lower, upper), CUB's HistogramEven: x falls into bin
// (x-lower)*bins/(upper-lower), computed in float64; elements outside the
// range are not counted. hist is overwritten.
//
// Each block counts its tile into shared bins with [block.Histogram] and
// adds its non-zero bins to hist with device-scope atomic adds, after a
// launch that zeroes hist.
func HistogramEven[T gpu.Elem, C gpu.Integer](ctx context.Context, d *gpu.Device, cfg gpu.Config, in gpu.Buffer[T], hist gpu.Buffer[C], lower, upper T) error {
	r, err := newRun(ctx, d, cfg, "device.HistogramEven")
	if err != nil {
		return err
	}
	if err := r.atLeast("hist", hist.Len(), 1); err != nil {
		return err
	}
	if !(lower < upper) {
		return fmt.Errorf("%s: lower %v is not below upper %v", r.fn, lower, upper)
	}
	if err := fill(r, hist, 0); err != nil || in.Len() == 0 {
		return err
	}
	bin := binner(hist.Len(), float64(lower), float64(upper))
	return r.launch("count", r.tiles(in.Len()), countTiles(r, in, hist, func(x T) int { return bin(float64(x)) }))
}

// binner returns the bin of x among n over [lo, hi), or -1.
func binner(n int, lo, hi float64) func(x float64) int {
	scale := float64(n) / (hi - lo)
	return func(x float64) int {
		if !(x >= lo && x < hi) {
			return -1
		}
		return min(int((x-lo)*scale), n-1)
	}
}

// countTiles returns the kernel that adds block b's tile's bins to hist.
func countTiles[T gpu.Elem, C gpu.Integer](r *run, in gpu.Buffer[T], hist gpu.Buffer[C], bin func(T) int) gpu.Kernel {
	tile := r.tile()
	return func(t *gpu.Thread) {
		var v [items]T
		var s [items]int
		n := loadTile(t, in, tile, &v)
		for j := range s {
			s[j] = -1
			if j < n {
				s[j] = bin(v[j])
			}
		}
		if hist.Len() > sharedBins {
			countGlobal(t, hist, s[:])
			return
		}
		bins := gpu.Shared[C](t, "bins", hist.Len())
		block.Histogram(t, bins, s[:])
		for i := t.Rank(); i < bins.Len(); i += t.Grid().BlockSize {
			if c := bins.Load(t, i); c != 0 {
				hist.AtomicAdd(t, i, c, scope.Device)
			}
		}
	}
}

// countGlobal adds the samples to hist directly.
func countGlobal[C gpu.Integer](t *gpu.Thread, hist gpu.Buffer[C], samples []int) {
	for _, s := range samples {
		if s >= 0 {
			hist.AtomicAdd(t, s, 1, scope.Device)
		}
	}
}

// fill sets every element of b to v in a launch, so an observer sees the
// writes.
func fill[T gpu.Elem](r *run, b gpu.Buffer[T], v T) error {
	if b.Len() == 0 {
		return nil
	}
	return r.launch("fill", (b.Len()+r.threads-1)/r.threads, func(t *gpu.Thread) {
		if i := t.GlobalID(); i < b.Len() {
			b.Store(t, i, v)
		}
	})
}
