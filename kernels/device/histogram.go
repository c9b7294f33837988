package device

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// rowBins is the most bins a warp counts in its own row of a scratch
// buffer; more are counted with device-scope atomics on hist directly. A
// warp's items*WarpSize elements are at least as many as the row's
// cells, so summing the rows reads no more than counting them.
const rowBins = 1024

// HistogramEven counts the elements of in into hist.Len() bins of equal
// width over [lower, upper), CUB's HistogramEven: x falls into bin
// (x-lower)*bins/(upper-lower), computed exactly for integers (as CUB
// computes it) and in float64, product first, for floats and Halves;
// elements outside the range are not counted. hist is overwritten, and
// must not share memory with in.
//
// Each thread counts its items with block-scope atomic adds into its
// warp's row of bins in a zeroed scratch buffer, which no other warp
// touches, and a second launch sums each bin over the rows into hist. A
// row per warp, not per block, keeps fewer threads on each counter, which
// a race detector's cost for an atomic grows with.
// With more than rowBins bins, threads add to hist with device-scope
// atomics after a launch that zeroes it.
func HistogramEven[T gpu.Elem, C gpu.Integer](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, in gpu.Buffer[T], hist gpu.Buffer[C], lower, upper T) error {
	r, err := newRun(ctx, d, cfg, "device.HistogramEven")
	if err != nil {
		return err
	}
	if err := r.atLeast("hist", hist.Len(), 1); err != nil {
		return err
	}
	if err := r.apart(argOf("in", in), argOf("hist", hist)); err != nil {
		return err
	}
	if !less(lower, upper) {
		return fmt.Errorf("%s: lower %v is not below upper %v", r.fn, lower, upper)
	}
	bin := binOf(hist.Len(), lower, upper)
	if in.Len() == 0 || hist.Len() > rowBins {
		if err := fill(r, hist, 0); err != nil || in.Len() == 0 {
			return err
		}
		return r.launch("count", spans(in.Len()), countKernel(in, hist, bin, 0, scope.Device))
	}
	ws := d.Config().WarpSize
	warps := (spans(in.Len()) + r.threads - 1) / r.threads * ((r.threads + ws - 1) / ws)
	rows := alloc[C](r, "rows", warps*hist.Len())
	if err := r.launch("count", spans(in.Len()), countKernel(in, rows, bin, hist.Len(), scope.Block)); err != nil {
		return err
	}
	return r.launch("sum", hist.Len(), sumRows(rows, hist))
}

// binOf returns the bin of x among n over [lower, upper), or -1. x is
// compared with the bounds in its own type, so that an int64 near them,
// which float64 rounds, falls on the side it lies, and by value for a
// Half, whose bits do not order as its values. An integer's bin is
// computed exactly in integers (see intBin), as CUB bins integer samples;
// a float's and a Half's in float64 (see placer).
func binOf[T gpu.Elem](n int, lower, upper T) func(T) int {
	if _, ok := any(lower).(gpu.Half); ok {
		lo, hi := valueOf(lower), valueOf(upper)
		place := placer(n, lo, hi)
		return func(x T) int {
			if v := valueOf(x); v >= lo && v < hi {
				return place(v)
			}
			return -1
		}
	}
	place := placeOf(n, lower, upper)
	return func(x T) int {
		if x < lower || !(x < upper) {
			return -1 // below, at or past upper, or a NaN
		}
		return place(x)
	}
}

// placeOf returns the bin among n over [lower, upper) of a value of T,
// not a Half, in it: intBin's for an integer type, floatBin's for a float.
func placeOf[T gpu.Elem](n int, lower, upper T) func(T) int {
	if isInteger(lower) {
		return intBin(n, lower, upper)
	}
	return floatBin(n, lower, upper)
}

// isInteger reports whether T, not a Half, is an integer type.
func isInteger[T gpu.Elem](T) bool {
	var one, two T = 1, 2
	return one/two == 0
}

// intBin returns the bin among n over [lower, upper) of an integer in it,
// (x-lower)*n/(upper-lower) exactly: each difference fits a uint64 (the
// conversions wrap alike), and the product is taken to 128 bits, whose
// quotient is below n.
func intBin[T gpu.Elem](n int, lower, upper T) func(T) int {
	width := uint64(upper) - uint64(lower)
	return func(x T) int {
		hi, lo := bits.Mul64(uint64(x)-uint64(lower), uint64(n))
		q, _ := bits.Div64(hi, lo, width)
		return int(q)
	}
}

// floatBin returns placer's bin for a float of T.
func floatBin[T gpu.Elem](n int, lower, upper T) func(T) int {
	place := placer(n, float64(lower), float64(upper))
	return func(x T) int { return place(float64(x)) }
}

// placer returns the bin among n over [lo, hi) of a value in it, as
// (x-lo)*n/(hi-lo) in float64, clamped to the bins; a range wider than
// float64 holds (hi-lo overflows) is placed by halves of its values, and
// a product that overflows as (x-lo)/(hi-lo)*n.
func placer(n int, lo, hi float64) func(x float64) int {
	clamp := func(b float64) int { return max(0, min(int(b), n-1)) }
	f, half := float64(n), 1.0
	if math.IsInf(hi-lo, 0) {
		half = 0.5
	}
	lo, w := lo*half, hi*half-lo*half
	return func(x float64) int {
		d := x*half - lo
		if p := d * f; !math.IsInf(p, 0) {
			return clamp(p / w)
		}
		return clamp(d / w * f)
	}
}

// less reports whether a < b: by value for Halves.
func less[T gpu.Elem](a, b T) bool {
	if _, ok := any(a).(gpu.Half); ok {
		return valueOf(a) < valueOf(b)
	}
	return a < b
}

// valueOf returns x's value as a float64: a Half's, not its bits.
func valueOf[T gpu.Elem](x T) float64 {
	if h, ok := any(x).(gpu.Half); ok {
		return float64(h.Float32())
	}
	return float64(x)
}

// countKernel returns the kernel whose threads add one to counts for each
// of their items' bins, with atomics of scope sc, at the bin in their
// warp's row: the row of the grid's warp w starts at w*rowLen, and a
// rowLen of 0 makes one row for all.
func countKernel[T gpu.Elem, C gpu.Integer](in gpu.Buffer[T], counts gpu.Buffer[C], bin func(T) int, rowLen int, sc scope.Scope) gpu.Kernel {
	return func(t *gpu.Thread) {
		row := t.GlobalWarp() * rowLen
		lo, hi := span(t, in.Len())
		for i := lo; i < hi; i++ {
			if s := bin(in.Load(t, i)); s >= 0 {
				counts.AtomicAdd(t, row+s, 1, sc)
			}
		}
	}
}

// sumRows returns the kernel whose thread s stores at hist[s] the sum of
// bin s over the rows.
func sumRows[C gpu.Integer](rows, hist gpu.Buffer[C]) gpu.Kernel {
	bins := hist.Len()
	return func(t *gpu.Thread) {
		s := t.GlobalID()
		if s >= bins {
			return
		}
		var c C
		for i := s; i < rows.Len(); i += bins {
			c += rows.Load(t, i)
		}
		hist.Store(t, s, c)
	}
}

// fill sets every element of b to v in a launch, so an observer sees the
// writes.
func fill[T gpu.Elem](r *run, b gpu.Buffer[T], v T) error {
	if b.Len() == 0 {
		return nil
	}
	return r.launch("fill", spans(b.Len()), func(t *gpu.Thread) {
		lo, hi := span(t, b.Len())
		for i := lo; i < hi; i++ {
			b.Store(t, i, v)
		}
	})
}
