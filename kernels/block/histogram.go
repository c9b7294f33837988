package block

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// Histogram counts the block's samples into bins, a shared array: it zeroes
// bins, and after a __syncthreads every thread adds one to bins[s] for
// each of its samples s with block-scope atomic adds; a negative sample is
// no sample. After its second __syncthreads every thread may read the
// counts. A sample past the last bin fails the thread with an error naming
// it.
func Histogram[C gpu.Integer](t *gpu.Thread, bins gpu.Buffer[C], samples []int) {
	for i := t.ThreadRank(); i < bins.Len(); i += t.Grid().BlockSize {
		bins.Store(t, i, 0)
	}
	t.SyncThreads()
	for _, s := range samples {
		if s >= 0 {
			bins.AtomicAdd(t, s, 1, scope.Block)
		}
	}
	t.SyncThreads()
}
