package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// The sorts take radixBits bits of the key a pass: each thread stores a
// count per digit a pass, so the counts a pass stores, scans and loads
// are radix/items per key, and wider digits trade fewer passes for more
// counts. radixBits divides 32, so the passes are even in number, and is
// at most 6, for scatter's mask of loaded digits.
const (
	radixBits = 4
	radix     = 1 << radixBits
)

// SortKeys sorts keys in place in ascending order, CUB's
// DeviceRadixSort::SortKeys, for 32- and 64-bit integer keys, signed or
// not.
//
// It is a least-significant-digit radix sort, four bits a pass, three
// steps a pass, each thread handling items consecutive keys: each thread
// counts its keys' digits in Go locals and stores the counts digit-major,
// at counts[digit*threads+thread]; an exclusive scan of them
// ([ExclusiveScan]) gives each digit of each thread its first place; and
// each thread stores its keys at their places in order, so the pass is
// stable. The passes alternate between keys and a scratch buffer, an even
// number of times.
func SortKeys[K gpu.Integer](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, keys gpu.Buffer[K]) error {
	r, err := newRun(ctx, d, cfg, "device.SortKeys")
	if err != nil {
		return err
	}
	return radixSort[K, K](r, keys, gpu.Buffer[K]{}, false)
}

// SortPairs sorts keys in place in ascending order and moves values with
// them, stably: pairs with equal keys keep their order. keys and values
// must have the same length and share no memory. The algorithm is [SortKeys]'.
func SortPairs[K gpu.Integer, V gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.LaunchConfig, keys gpu.Buffer[K], values gpu.Buffer[V]) error {
	r, err := newRun(ctx, d, cfg, "device.SortPairs")
	if err != nil {
		return err
	}
	if err := r.same("keys", keys.Len(), "values", values.Len()); err != nil {
		return err
	}
	if err := r.apart(argOf("keys", keys), argOf("values", values)); err != nil {
		return err
	}
	return radixSort(r, keys, values, true)
}

// A sortPass is one digit's pass from src to dst.
type sortPass[K gpu.Integer, V gpu.Elem] struct {
	srcK, dstK gpu.Buffer[K]
	srcV, dstV gpu.Buffer[V]
	pairs      bool
	shift      int
	threads    int               // spans(n)
	counts     gpu.Buffer[int32] // [digit*threads+thread], and a last 0 that scans to n
}

func radixSort[K gpu.Integer, V gpu.Elem](r *run, keys gpu.Buffer[K], values gpu.Buffer[V], pairs bool) error {
	n := keys.Len()
	if n <= 1 {
		return nil
	}
	p := sortPass[K, V]{srcK: keys, dstK: alloc[K](r, "keys", n), srcV: values, pairs: pairs, threads: spans(n)}
	if pairs {
		p.dstV = alloc[V](r, "values", n)
	}
	p.counts = alloc[int32](r, "digit offsets", radix*p.threads+1)
	for p.shift = 0; p.shift < block.KeyBits[K](); p.shift += radixBits {
		if err := p.run(r); err != nil {
			return err
		}
		p.srcK, p.dstK, p.srcV, p.dstV = p.dstK, p.srcK, p.dstV, p.srcV
	}
	return nil
}

// run is one pass: count, scan, scatter.
func (p *sortPass[K, V]) run(r *run) error {
	step := fmt.Sprintf("bits %d-%d", p.shift, p.shift+radixBits-1)
	if err := r.launch("count "+step, p.threads, p.count); err != nil {
		return err
	}
	if err := scan(r, p.counts, p.counts, new(int32(0)), gpu.Add[int32]); err != nil {
		return err
	}
	return r.launch("scatter "+step, p.threads, p.scatter)
}

// count stores the thread's digit counts at counts[digit*threads+thread].
func (p *sortPass[K, V]) count(t *gpu.Thread) {
	lo, hi := span(t, p.srcK.Len())
	if lo == hi {
		return
	}
	var c [radix]int32
	for i := lo; i < hi; i++ {
		c[block.Digit(p.srcK.Load(t, i), p.shift, radixBits)]++
	}
	for d, n := range c {
		p.counts.Store(t, d*p.threads+t.GlobalID(), n)
	}
}

// scatter stores the thread's keys, and values, at their places: the
// first key of digit d at counts[d*threads+thread], the scanned count,
// each next one after the last. A digit's place is loaded when the thread
// meets its first key.
func (p *sortPass[K, V]) scatter(t *gpu.Thread) {
	lo, hi := span(t, p.srcK.Len())
	var at [radix]int32
	var loaded uint64 // bit d: at[d] is loaded
	for i := lo; i < hi; i++ {
		k := p.srcK.Load(t, i)
		d := block.Digit(k, p.shift, radixBits)
		if loaded&(1<<d) == 0 {
			at[d], loaded = p.counts.Load(t, d*p.threads+t.GlobalID()), loaded|1<<d
		}
		p.dstK.Store(t, int(at[d]), k)
		if p.pairs {
			p.dstV.Store(t, int(at[d]), p.srcV.Load(t, i))
		}
		at[d]++
	}
}
