// Package block holds block-wide collectives a kernel calls, CUB's
// BlockReduce, BlockScan, BlockLoad/BlockStore, BlockRadixRank and
// BlockHistogram: every thread of the block calls the same function at the
// same point, each with its own input, and receives its own result.
//
// # Barriers and shared memory
//
// Each function documents the __syncthreads ([gpu.Thread.SyncThreads]) it
// executes, so every thread of the block must call it: one that exits or
// waits elsewhere is a divergence the launch reports. The functions that
// exchange values between warps take their shared memory from the caller,
// as CUB's TempStorage: a shared array ([gpu.Shared]) of at least the
// length a companion function names, [TempLen] or [RadixRankLen]. [Temp]
// declares one. A function's last barrier follows its last access to that
// memory, so the block may pass the same array to the next call at once.
//
// In the terminology of [the Go memory model], every access a thread of
// the block makes before one of these functions "synchronizes before"
// every access any thread of the block makes after it returns, as for
// __syncthreads; [LoadBlocked] and the other loads and stores execute no
// barrier and synchronize nothing.
//
// An op must be associative and free of side effects, such as [gpu.Add],
// [gpu.Min] or [gpu.Max]; values are combined in rank order, so it need
// not be commutative.
//
// [the Go memory model]: https://go.dev/ref/mem
package block
