package block

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// Histogram counts the block's samples into bins, a shared array: after a
// __syncthreads it zeroes bins, and after another every thread adds one to
// bins[s] for each of its samples s with block-scope atomic adds; a
// negative sample is no sample. After its third __syncthreads every thread
// may read the counts, and, as with RadixRank, the block may read them
// until it calls Histogram on the same bins again: the first barrier
// orders those reads before the zeroing. A sample past the last bin fails
// the thread with an error naming it.
func Histogram[C gpu.Integer](t *gpu.Thread, bins gpu.Buffer[C], samples []int) {
	t.SyncThreads()
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
