package device

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
)

// The sorts take radixBits bits of the key a pass.
const (
	radixBits = 4
	radix     = 1 << radixBits
)

// SortKeys sorts keys in place in ascending order, CUB's
// DeviceRadixSort::SortKeys, for 32- and 64-bit integer keys, signed or
// not. It needs blocks of at least 16 threads.
//
// It is a least-significant-digit radix sort, four bits a pass, three
// steps a pass: each block counts its keys' digits with
// [block.Histogram] and stores the counts digit-major; an exclusive scan
// of them ([ExclusiveScan]) gives each digit of each block its first
// place; and each block ranks its keys stably with [block.RadixRank] and
// stores each at its place. The passes alternate between keys and a
// scratch buffer, an even number of times.
func SortKeys[K gpu.Integer](ctx context.Context, d *gpu.Device, cfg gpu.Config, keys gpu.Buffer[K]) error {
	r, err := newRun(ctx, d, cfg, "device.SortKeys")
	if err != nil {
		return err
	}
	return radixSort[K, K](r, keys, gpu.Buffer[K]{}, false)
}

// SortPairs sorts keys in place in ascending order and moves values with
// them, stably: pairs with equal keys keep their order. keys and values
// must have the same length. The algorithm is [SortKeys]'.
func SortPairs[K gpu.Integer, V gpu.Elem](ctx context.Context, d *gpu.Device, cfg gpu.Config, keys gpu.Buffer[K], values gpu.Buffer[V]) error {
	r, err := newRun(ctx, d, cfg, "device.SortPairs")
	if err != nil {
		return err
	}
	if err := r.same("keys", keys.Len(), "values", values.Len()); err != nil {
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
	hist       gpu.Buffer[int32] // [digit*blocks+block]
}

func radixSort[K gpu.Integer, V gpu.Elem](r *run, keys gpu.Buffer[K], values gpu.Buffer[V], pairs bool) error {
	if r.threads < radix {
		return fmt.Errorf("%s: Config.Block.X is %d; the sorts need at least %d threads", r.fn, r.threads, radix)
	}
	n := keys.Len()
	if n <= 1 {
		return nil
	}
	blocks := (n + r.threads - 1) / r.threads
	p := sortPass[K, V]{srcK: keys, dstK: alloc[K](r, "keys", n), srcV: values, pairs: pairs}
	if pairs {
		p.dstV = alloc[V](r, "values", n)
	}
	p.hist = alloc[int32](r, "digit offsets", radix*blocks)
	for p.shift = 0; p.shift < keyBits[K](); p.shift += radixBits {
		if err := p.run(r, blocks); err != nil {
			return err
		}
		p.srcK, p.dstK, p.srcV, p.dstV = p.dstK, p.srcK, p.dstV, p.srcV
	}
	return nil
}

// run is one pass: count, scan, scatter.
func (p *sortPass[K, V]) run(r *run, blocks int) error {
	step := fmt.Sprintf("bits %d-%d", p.shift, p.shift+radixBits-1)
	if err := r.launch("count "+step, blocks, p.count); err != nil {
		return err
	}
	if err := scan(r, p.hist, p.hist, new(int32(0)), gpu.Add[int32]); err != nil {
		return err
	}
	return r.launch("scatter "+step, blocks, p.scatter)
}

// digit returns the thread's key and its digit, or -1 past the end.
func (p *sortPass[K, V]) digit(t *gpu.Thread) (K, int) {
	var k K
	if i := t.GlobalID(); i < p.srcK.Len() {
		k = p.srcK.Load(t, i)
		return k, digitOf(k, p.shift)
	}
	return k, -1
}

// count stores the block's digit counts at hist[digit*blocks+block].
func (p *sortPass[K, V]) count(t *gpu.Thread) {
	bins := gpu.Shared[int32](t, "digit counts", radix)
	_, d := p.digit(t)
	block.Histogram(t, bins, []int{d})
	if d := t.Rank(); d < radix {
		p.hist.Store(t, d*t.Grid().Blocks+t.Block(), bins.Load(t, d))
	}
}

// scatter stores the block's keys, and values, at their places.
func (p *sortPass[K, V]) scatter(t *gpu.Thread) {
	k, d := p.digit(t)
	tmp := gpu.Shared[int32](t, "rank", block.RadixRankLen(t, radix))
	rank := block.RadixRank(t, tmp, d, radix)
	if rank < 0 {
		return
	}
	// rank counts the block's keys of smaller digits too; tmp[d*Warps]
	// holds how many those are.
	within := rank - int(tmp.Load(t, d*t.Grid().Warps))
	at := int(p.hist.Load(t, d*t.Grid().Blocks+t.Block())) + within
	p.dstK.Store(t, at, k)
	if p.pairs {
		p.dstV.Store(t, at, p.srcV.Load(t, t.GlobalID()))
	}
}

// keyBits returns the bits in K: 32 or 64.
func keyBits[K gpu.Integer]() int {
	var one K = 1
	if one<<31<<1 == 0 {
		return 32
	}
	return 64
}

// digitOf returns the radixBits bits of k from shift, with the sign bit
// of a signed K flipped, so that digits order keys as their values do.
func digitOf[K gpu.Integer](k K, shift int) int {
	u := uint64(k)
	var zero K
	if zero-1 < zero { // signed
		u ^= 1 << (keyBits[K]() - 1)
	}
	return int(u>>shift) & (radix - 1)
}
