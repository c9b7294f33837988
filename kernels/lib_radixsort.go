package kernels

import (
	"context"
	"fmt"
	"math/bits"
	"slices"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/race/kind"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injNoZeroSync = "no-zero-sync"
)

// LibRadixSort sorts uint32 keys by least-significant-digit radix sort, four
// bits a pass, three launches a pass (the structure of CUB's onesweep's
// predecessors):
//
//   - each block counts its tile's digits with block.Histogram and stores
//     the counts digit-major, so that
//   - one block's exclusive scan of them gives every (digit, tile) its
//     first output place;
//   - each block scatters its tile stably: __match_any_sync groups a warp's
//     lanes by digit, a lane's rank is the number of its group's lanes
//     below it, each group's highest lane stores the group's size in
//     shared memory, and after __syncthreads one thread per digit turns
//     the warps' counts into offsets.
//
// The scatter is block.RadixRank's algorithm written out, not a call of
// it: the no-zero-sync injection removes a barrier inside the ranking.
func LibRadixSort() *Entry {
	return &Entry{
		Name: "lib/radix-sort",
		Doc:  "LSD radix sort, 4-bit digits: block digit counts, one-block scan, stable warp-match scatter",
		Injections: []Injection{
			{Name: injNoZeroSync, Doc: "no __syncthreads between zeroing the warps' digit counts and storing them; a count zeroed late sends keys over other blocks' places",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp, kind.MissingDeviceFence}, Where: where((*radixSort).scatter), Corrupts: true},
		},
		Setup: setupRadixSort,
	}
}

const radixDigits = 16

type radixSort struct {
	n, blocks, threads int
	keys, alt          gpu.Buffer[uint32]
	hist, offsets      gpu.Buffer[int32]
	inject             string
	host               []uint32
}

func setupRadixSort(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "lib/radix-sort"); err != nil {
		return nil, err
	}
	s := &radixSort{n: 4000, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		s.n, s.threads = 1<<20, 256
	}
	s.blocks = ceilDiv(s.n, s.threads)
	r := newRand(p.Seed)
	s.host = make([]uint32, s.n)
	for i := range s.host {
		s.host[i] = r.Uint32()
	}
	s.keys, s.alt = gpu.FromHost(d, "keys", s.host), gpu.Alloc[uint32](d, "keysAlt", s.n)
	s.hist = gpu.Alloc[int32](d, "digitCounts", radixDigits*s.blocks)
	s.offsets = gpu.Alloc[int32](d, "digitOffsets", radixDigits*s.blocks+1)
	return &Run{Launch: s.launch, Check: s.check}, nil
}

func (s *radixSort) launch(ctx context.Context, launch LaunchFunc) error {
	src, dst := s.keys, s.alt
	for shift := 0; shift < 32; shift += 4 {
		count := func(t *gpu.Thread) { s.count(t, src, shift) }
		scatter := func(t *gpu.Thread) { s.scatter(t, src, dst, shift) }
		for _, l := range []struct {
			cfg gpu.LaunchConfig
			k   gpu.Kernel
		}{
			{launchCfg(fmt.Sprintf("radix-count-%d", shift), s.blocks, s.threads), count},
			{launchCfg(fmt.Sprintf("radix-offsets-%d", shift), 1, scanThreads), scanCounts(s.hist, s.offsets)},
			{launchCfg(fmt.Sprintf("radix-scatter-%d", shift), s.blocks, s.threads), scatter},
		} {
			if err := launch(ctx, l.cfg, l.k); err != nil {
				return err
			}
		}
		src, dst = dst, src
	}
	return nil
}

// digit returns the thread's key and its digit, or radixDigits for a
// thread past the end.
func (s *radixSort) digit(t *gpu.Thread, src gpu.Buffer[uint32], shift int) (uint32, int) {
	if i := t.GlobalID(); i < s.n {
		k := src.ReadOnly().Load(t, i) // const unsigned* __restrict__ keys_in
		return k, int(k>>shift) & (radixDigits - 1)
	}
	return 0, radixDigits
}

// count stores the tile's digit counts at hist[digit*blocks+block],
// counted by block.Histogram.
func (s *radixSort) count(t *gpu.Thread, src gpu.Buffer[uint32], shift int) {
	counts := gpu.Shared[int32](t, "digitCounts", radixDigits)
	var sample [1]int
	if _, sample[0] = s.digit(t, src, shift); sample[0] == radixDigits {
		sample[0] = -1 // no key
	}
	block.Histogram(t, counts, sample[:])
	if d := t.ThreadRank(); d < radixDigits {
		s.hist.Store(t, d*s.blocks+t.BlockRank(), counts.Load(t, d))
	}
}

// scatter stores the tile's keys stably at their places. Each digit
// group's highest lane stores the group's size for its warp; one thread
// per digit turns the sizes into counts of the digit in earlier warps.
func (s *radixSort) scatter(t *gpu.Thread, src, dst gpu.Buffer[uint32], shift int) {
	k, d := s.digit(t, src, shift)
	peers := gpu.MatchAnySync(t, gpu.FullMask, int32(d))
	warps := t.Grid().Warps
	wc := gpu.Shared[int32](t, "warpDigitCounts", warps*radixDigits)
	for i := t.ThreadRank(); i < warps*radixDigits; i += s.threads {
		wc.Store(t, i, 0)
	}
	if s.inject != injNoZeroSync {
		t.SyncThreads()
	}
	if d < radixDigits && t.Lane() == 63-bits.LeadingZeros64(peers) {
		wc.Store(t, t.Warp()*radixDigits+d, int32(bits.OnesCount64(peers)))
	}
	t.SyncThreads()
	if t.ThreadRank() < radixDigits {
		var sum int32
		for w := range warps {
			i := w*radixDigits + t.ThreadRank()
			c := wc.Load(t, i)
			wc.Store(t, i, sum)
			sum += c
		}
	}
	t.SyncThreads()
	if d < radixDigits {
		rank := int32(bits.OnesCount64(peers & (1<<t.Lane() - 1)))
		before := wc.Load(t, t.Warp()*radixDigits+d)
		dst.Store(t, int(s.offsets.Load(t, d*s.blocks+t.BlockRank())+before+rank), k)
	}
}

func (s *radixSort) check() error {
	want := slices.Clone(s.host)
	slices.Sort(want)
	return sameAll("sorted keys", s.keys.Host(), want)
}
