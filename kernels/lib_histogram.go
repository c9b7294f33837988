package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeMerge = "block-scope-merge"
	injNoMergeSync     = "no-merge-sync"
)

// LibHistogram counts n values into 256 bins the privatized way: each block
// zeroes a histogram in shared memory, counts its grid-strided values into
// it with block-scope atomics (only its own threads touch it), and after
// __syncthreads adds every non-zero bin into the global histogram with a
// device-scope atomic, since every block adds into it.
//
// The counting is written out rather than a call of block.Histogram: the
// no-merge-sync injection removes the barrier that ends it.
func LibHistogram() *Entry {
	return &Entry{
		Name: "lib/histogram",
		Doc:  "privatized histogram: block-scope atomics in shared memory, device-scope atomics to merge",
		Injections: []Injection{
			{Name: injBlockScopeMerge, Doc: "blocks merge into the global histogram with block-scope atomics",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*histogram).merge)},
			{Name: injNoMergeSync, Doc: "no __syncthreads between counting into shared memory and reading it to merge",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*histogram).merge), Corrupts: true},
		},
		Setup: setupHistogram,
	}
}

const histBins = 256

type histogram struct {
	n, blocks, threads int
	in                 gpu.Buffer[int32]
	bins               gpu.Buffer[uint32]
	inject             string
	host               []int32
}

func setupHistogram(d *gpu.Device, p Params) (*Run, error) {
	h := &histogram{n: 100_000, blocks: 8, threads: 256, inject: p.Inject}
	if p.Size == Paper {
		h.n, h.blocks = 10_000_000, 64
	}
	r := newRand(p.Seed)
	h.host = make([]int32, h.n)
	for i := range h.host { // skewed, so that some bins are hot
		h.host[i] = int32(r.IntN(histBins) * r.IntN(histBins) / histBins)
	}
	h.in, h.bins = gpu.FromHost(d, "in", h.host), gpu.Alloc[uint32](d, "bins", histBins)
	return &Run{Launch: single(launchCfg("histogram", h.blocks, h.threads), h.kernel), Check: h.check}, nil
}

func (h *histogram) kernel(t *gpu.Thread) {
	in := h.in.ReadOnly() // const int* __restrict__ in
	local := gpu.Shared[uint32](t, "localBins", histBins)
	for b := t.ThreadRank(); b < histBins; b += h.threads {
		local.Store(t, b, 0)
	}
	t.SyncThreads()
	for i := t.GlobalID(); i < h.n; i += h.blocks * h.threads {
		local.AtomicAdd(t, int(in.Load(t, i)), 1, scope.Block)
	}
	h.merge(t, local)
}

// merge adds the block's non-zero bins into the global histogram.
func (h *histogram) merge(t *gpu.Thread, local gpu.Buffer[uint32]) {
	s := scope.Device
	if h.inject == injBlockScopeMerge {
		s = scope.Block
	}
	if h.inject != injNoMergeSync {
		t.SyncThreads()
	}
	for b := t.ThreadRank(); b < histBins; b += h.threads {
		if c := local.Load(t, b); c != 0 {
			h.bins.AtomicAdd(t, b, c, s)
		}
	}
}

func (h *histogram) check() error {
	want := make([]uint32, histBins)
	for _, v := range h.host {
		want[v]++
	}
	return sameAll("histogram", h.bins.Host(), want)
}
