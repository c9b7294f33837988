// Package warp holds warp-wide collectives a kernel calls, CUB's WarpReduce
// and WarpScan: every lane of the calling thread's warp that exists (a
// partial last warp has fewer) calls the same function with its own value,
// and each receives the result for its lane.
//
// The collectives execute no __syncthreads and use no shared memory. Each
// is one warp collective over the warp's lanes (a cooperative-groups
// reduce or scan of the warp's tile); in a block smaller than a warp it is
// log2(warp size) shuffles instead, one more for the exclusive scans. Like every warp collective it waits
// for every lane of the warp, so all of them must call it, with the same
// op, at the same point: a lane that does not is a divergence the launch
// reports. In the terminology of [the Go memory model], the lanes' Go code
// before the collective "synchronizes before" their Go code after it, but,
// like CUDA's warp intrinsics, a collective orders no access of gpu
// memory in the model package race checks: lanes that exchange data
// through shared memory around one still need a __syncwarp
// (Thread.SyncWarp) between the writes and the reads.
//
// An op must be associative and free of side effects, such as [gpu.Add],
// [gpu.Min] or [gpu.Max]; it need not be commutative: values are combined
// in lane order.
//
// [the Go memory model]: https://go.dev/ref/mem
package warp
