package gpu

// A BlockGroup is cooperative groups' thread_block: every thread of t's
// block. Get it with [ThisBlock].
type BlockGroup struct{ t *Thread }

// ThisBlock returns the thread's block group, cg::this_thread_block().
func ThisBlock(t *Thread) BlockGroup { return BlockGroup{t} }

// Sync is thread_block::sync, the same barrier as [Thread.SyncThreads],
// with its guarantee.
//
//go:noinline
func (g BlockGroup) Sync() {
	t := g.t
	t.check()
	t.mark()
	if t.blk.exec.barrier(t, false) {
		t.resume(t.fib.await(t)) // as in SyncThreads
	}
}

// ThreadRank returns the thread's rank in the block, x fastest.
func (g BlockGroup) ThreadRank() int { return g.t.rank }

// Size returns the number of threads in the block.
func (g BlockGroup) Size() int { return g.t.blk.l.g.BlockSize }

// Dim returns the block's extent, thread_block::dim_threads.
func (g BlockGroup) Dim() Dim3 { return g.t.blk.l.g.BlockDim }

// GroupIndex returns the block's index in the grid, blockIdx.
func (g BlockGroup) GroupIndex() Dim3 { return g.t.blk.idx }

// ThreadIndex returns the thread's index in the block, threadIdx.
func (g BlockGroup) ThreadIndex() Dim3 { return g.t.ThreadIdx() }
