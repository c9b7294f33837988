package gorace

import (
	"fmt"
	"sync/atomic"
)

// histogram counts 2^20 values into 256 bins: each block into a local
// histogram, then its non-zero bins into the global one atomically, as the
// kernel merges with device-scope atomics.
type histogram struct {
	in   []int32
	bins [bins]atomic.Uint32
}

func setupHistogram(shift int) *Job {
	n := 1 << (20 - shift)
	h := &histogram{in: make([]int32, n)}
	r := newRand()
	for i := range h.in { // skewed, so that some bins are hot
		h.in[i] = int32(r.IntN(bins) * r.IntN(bins) / bins)
	}
	return &Job{Do: h.do, Check: h.check}
}

// do counts the input; run again, it counts it again.
func (h *histogram) do() {
	forBlocks(len(h.in)/block, func(b int) {
		var local [bins]uint32
		for _, v := range h.in[b*block : (b+1)*block] {
			local[v]++
		}
		for i, c := range local {
			if c != 0 {
				h.bins[i].Add(c)
			}
		}
	})
}

func (h *histogram) check() error {
	var want [bins]uint32
	for _, v := range h.in {
		want[v]++
	}
	for i := range want {
		if got := h.bins[i].Load(); got != want[i] {
			return fmt.Errorf("bin %d = %d, want %d", i, got, want[i])
		}
	}
	return nil
}
