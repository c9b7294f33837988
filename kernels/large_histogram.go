package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// injPlainMerge is the switch name of large/histogram's injection.
const injPlainMerge = "plain-merge"

// largeHistogram counts 2^log2 values, one per thread, into 256 bins the
// privatized way of lib/histogram: each block counts its 256 values into
// a shared-memory histogram with block-scope atomics, and after
// __syncthreads each thread adds one bin into the global histogram with a
// device-scope atomic.
func largeHistogram(log2 int) *Entry {
	n := 1 << log2
	return &Entry{
		Name: "large/histogram",
		Doc:  fmt.Sprintf("256-bin histogram of %d values, one per thread: shared-memory block atomics, device atomics to merge", n),
		Injections: []Injection{
			// The store may be reported against the thread's own load, the
			// other blocks' reads noted in the report, as missing-block-fence.
			{Name: injPlainMerge, Doc: "blocks merge into the global histogram with a plain load and store instead of an atomic add",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence}, Where: where((*bigHistogram).merge), Corrupts: true},
		},
		Setup: func(d *gpu.Device, p Params) (*Run, error) { return setupBigHistogram(d, p, n) },
	}
}

type bigHistogram struct {
	n      int
	in     gpu.Buffer[int32]
	bins   gpu.Buffer[uint32]
	host   []int32
	inject string
}

func setupBigHistogram(d *gpu.Device, p Params, n int) (*Run, error) {
	h := &bigHistogram{n: n, inject: p.Inject}
	r := newRand(p.Seed)
	h.host = make([]int32, n)
	for i := range h.host { // skewed, so that some bins are hot
		h.host[i] = int32(r.IntN(histBins) * r.IntN(histBins) / histBins)
	}
	h.in, h.bins = gpu.FromHost(d, "in", h.host), gpu.Alloc[uint32](d, "bins", histBins)
	return &Run{Launch: single(launchCfg("histogram", n/largeBlock, largeBlock), h.kernel), Check: h.check}, nil
}

// kernel counts the thread's value; a block has one thread per bin
// (largeBlock == histBins), which zeroes and merges that bin.
func (h *bigHistogram) kernel(t *gpu.Thread) {
	local := gpu.Shared[uint32](t, "localBins", histBins)
	local.Store(t, t.ThreadRank(), 0)
	t.SyncThreads()
	local.AtomicAdd(t, int(h.in.ReadOnly().Load(t, t.GlobalID())), 1, scope.Block)
	t.SyncThreads()
	h.merge(t, local)
}

// merge adds the block's count of the thread's bin into the global
// histogram.
func (h *bigHistogram) merge(t *gpu.Thread, local gpu.Buffer[uint32]) {
	b := t.ThreadRank()
	c := local.Load(t, b)
	switch {
	case c == 0:
	case h.inject == injPlainMerge:
		h.bins.Store(t, b, h.bins.Load(t, b)+c)
	default:
		h.bins.AtomicAdd(t, b, c, scope.Device)
	}
}

func (h *bigHistogram) check() error {
	want := make([]uint32, histBins)
	for _, v := range h.host {
		want[v]++
	}
	return sameAll("histogram", h.bins.Host(), want)
}
