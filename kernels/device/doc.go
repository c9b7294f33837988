// Package device holds device-wide primitives on a user's buffers, CUB's
// DeviceReduce, DeviceScan, DeviceHistogram, DeviceSelect,
// DevicePartition, DeviceRadixSort, DeviceRunLengthEncode and
// DeviceSegmentedReduce: each is one call that launches kernels on a
// [gpu.Device] and returns when they are done.
//
// Every primitive takes a context, which cancels its launches, and a
// [gpu.LaunchConfig] that each of its launches starts from, as a user's own
// launch does: its Observer (a race detector from package race, say), and
// the device's, watch every launch, so a pipeline of the user's kernels
// and these primitives is checked end to end; Executor, Divergence,
// Watchdog, Timeout, Schedule, Seed and Deterministic apply to each
// launch. Block.X sets the threads per block (256 if zero); the primitive
// sets Name, Grid, the rest of Block, DynamicShared and Cooperative
// itself.
//
// The primitives have CUB's items per thread: each thread folds, counts
// or scans 32 consecutive elements in Go locals, so a launch over n
// elements runs n/32 threads. Where CUB then combines the threads' values
// with warp shuffles and a block exchange, these combine them through a
// launch boundary: each thread stores its value in a scratch buffer that
// the next launch, 32 times smaller, takes as its input. In the emulator
// a thread that waits at a collective moves to a coroutine, which costs
// more than the loads it would save, while a barrier-free thread is a
// function call; BenchmarkCombine sets the three ways side by side. The
// primitives therefore execute no barrier or warp collective, and depend
// on no block size.
//
// The primitives allocate their scratch buffers on the device, and check
// their arguments before launching anything: a nil device, a buffer too
// short for the output, or buffers whose lengths disagree give an error
// naming the argument and the sizes. Inputs are never written, except the
// buffers the sorts sort in place.
//
// An op must be associative and free of side effects, such as [gpu.Add],
// [gpu.Min] or [gpu.Max]; it need not be commutative: every primitive
// combines values in index order. A float sum's rounding therefore
// differs from a sequential loop's only by association.
//
// In the terminology of [the Go memory model], every write of a
// primitive's launches "synchronizes before" it returns, and its call
// "synchronizes before" its first launch starts, as for [gpu.Device.Launch].
//
// [the Go memory model]: https://go.dev/ref/mem
package device
