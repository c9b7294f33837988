// Package gpu runs CUDA-style kernels on the CPU: a grid of blocks of
// threads, each thread a call of a Go function, with global and shared
// memory, scoped atomics, fences and barriers that follow the semantics of a
// Volta-class GPU under independent thread scheduling.
//
// A [Device] holds global memory ([Alloc], [FromHost]) and runs launches
// ([Device.Launch]). A kernel is a func(*[Thread]); it reads its
// coordinates from the Thread (ThreadIdx, BlockIdx, Lane, GlobalID, ...)
// and touches memory through [Buffer] methods that take the Thread first:
//
//	err := d.Launch(ctx, gpu.LaunchConfig{Grid: gpu.Dim3{X: n / 256}, Block: gpu.Dim3{X: 256}},
//		func(t *gpu.Thread) {
//			i := t.GlobalID()
//			y.Store(t, i, a*x.Load(t, i)+y.Load(t, i))
//		})
//
// # Memory
//
// Every element access is a sync/atomic operation on the host, so a kernel
// that races is never a racy Go program: `go test -race` stays quiet, and
// package race reports the emulated race instead. Accesses come in CUDA's
// kinds: weak (Load, Store), strong relaxed (LoadVolatile, StoreVolatile),
// scoped acquire/release (LoadAcquire, StoreRelease), scoped relaxed atomics
// (AtomicLoad, AtomicStore), scoped relaxed read-modify-writes (AtomicAdd,
// ..., AtomicCAS, as CUDA's atomicX), and libcu++'s atomic_ref, whose every
// operation takes a memory order ([Buffer.Ref], [Ref]: relaxed, acquire,
// release, acq_rel, seq_cst). [Thread.Fence] and the ThreadFence calls are
// PTX's fence.sc, as __threadfence compiles on Volta and later;
// [Thread.FenceAcqRel] is the acq_rel fence. Elements are 1-, 2-, 4- and
// 8-byte integers, float32, float64 and [Half]; narrow ones live in their
// 4-byte word, which the runtime updates with compare-and-swap, so
// neighbouring bytes never clobber each other. [Buffer.Slice] is a view (a
// pointer plus an offset), [Buffer.ReadOnly] a read-only view (a
// const T* __restrict__ parameter, or loads through __ldg: nothing writes
// it while a launch reads through it, a promise package race checks) and
// [Copy] a device-to-device copy. [Shared] and
// [DynamicShared] give per-block shared memory.
// Memory belongs to the device that allocated it, whose number every
// [Memory] carries: a thread that accesses another device's buffer ends
// with a [ForeignError] before the access reaches memory or an observer.
//
// # Execution
//
// Blocks are scheduled onto a bounded number of resident slots, as blocks
// onto SMs, so a grid of millions of threads runs in bounded memory. An
// [Executor] runs each block's threads: [Fibers] (the default) runs them as
// plain calls on coroutines and switches only when a thread must wait;
// [Goroutines] gives each thread a goroutine. A device keeps the coroutines
// and goroutines (its slots' as well) from launch to launch, with the
// stacks they grew, which keeps memory flat under
// `go test -race` too; [Device.Close] ends them. Strong and atomic accesses are
// yield points, so a thread spinning on a flag lets the thread that sets it
// run under every executor; spin with them, as CUDA requires. A spin on
// weak loads, CUDA's "forgot volatile" bug, is caught and yields too (see
// "Never a hang"), but a compiled CUDA kernel may never reread the flag.
//
// # Warps and cooperative groups
//
// Lanes of a warp are never in lockstep (independent thread scheduling):
// outside warp collectives, two lanes are as unordered as two threads of
// different blocks. [Thread.SyncWarp] and the *Sync intrinsics (ShflSync,
// BallotSync, MatchAnySync, ReduceAddSync, ...) take a member mask, as
// CUDA's do, and synchronize exactly the lanes it names. Cooperative
// groups mirror cg:: — [ThisBlock], [ThisGrid] (whose Sync needs
// LaunchConfig.Cooperative), [TiledPartition] and [StaticTile], [CoalescedThreads],
// LabeledPartition and BinaryPartition — with [Reduce], [InclusiveScan] and
// [ExclusiveScan] on tiles. [ActiveMask] and CoalescedThreads decide which
// lanes are converged deterministically, as their docs say.
//
// # Never a hang
//
// A thread that exits or waits at a different barrier while others wait at
// a barrier or collective is a divergence (lanes of a warp may meet at a
// __syncwarp from different call sites, as from Volta on), reported
// as a [DivergenceError] naming the barrier's file:line and the threads on
// each side; LaunchConfig.Divergence chooses to fail (the default), warn
// or allow. Lanes may reach
// collectives whose masks overlap at different times, as CUDA allows (a
// reduce over 8-lane tiles, then one over the warp); only lanes that wait
// for each other in different collectives are a mismatch. Threads that
// all wait at barriers none of them can complete stop the launch with
// [ErrDeadlock]. Resident blocks that spin without progress while blocks
// wait to be scheduled (waiting on blocks that cannot become resident)
// stop it with [ErrNotResident].
//
// A livelock watchdog, on by default, stops a launch in which, for its
// window, every unfinished thread spins (yields at strong or atomic
// accesses, or polls with weak loads, as below) or waits, and no thread
// changes memory, completes a barrier or collective, or exits: the error
// wraps [ErrLivelock]. The window is [DefaultWatchdog] unless
// DeviceConfig.Watchdog or LaunchConfig.Watchdog sets it; a negative one turns
// the watchdog off. A thread computing without runtime calls never counts
// as spinning, so a long correct kernel does not trip it.
//
// A thread polling a flag with weak loads (Load) spins too. The criterion:
// a thread's weak loads count from its last weak store, fence, barrier or
// collective; if its 512th and 1024th weak loads read the same element
// and value, and so does each of the 32 weak loads after, with no strong
// or atomic access from the 512th on, the thread is polling that element. It
// then yields as a spinning atomic does, and again every 544 weak loads
// while the poll goes on. A kernel that re-reads a constant a few hundred
// times in a row, or any number of times among stores, strong accesses or
// loads of other elements, never yields for it; so a loop that polls two
// or more elements in turn with weak loads is not seen as polling, and
// with no deadline it runs on (poll with LoadVolatile or AtomicLoad,
// whose spins the watchdog sees). A stall report lists a
// polling thread as polling a weak load and suggests LoadVolatile or
// AtomicLoad; under package race's detector the poll stays a reported
// race with the store that ends it.
//
// A launch still running at its context's deadline or LaunchConfig.Timeout
// stops the same way. Each of these gives a [StallError] that lists, per
// block, where every unfinished thread is: the barrier or collective and
// its line, or the access it spun on. A stopped thread stays stopped: each
// runtime call it makes panics again, so a kernel that recovers the panic
// cannot go on using the runtime, and an error the runtime raised (an
// index out of range, an invalid scope) is reported even if the kernel
// recovered it. A thread that never calls into the runtime (a `for {}`),
// or recovers every stop, cannot be stopped: Launch returns without it
// soon after the stop, whatever stopped the launch and even if the
// context has no deadline, naming its block in StallError.LeftRunning.
//
// A [Thread] used after its kernel returned, or by another goroutine at a
// barrier or spin while the thread waits, panics with an error naming it
// and wrapping [ErrThreadEnded] or [ErrThreadShared]; such a call touches
// no memory and no barrier.
//
// The runtime's memory is bounded whatever a kernel does: a spinning
// block's heap stays flat, and every size, count and product in a
// configuration or allocation is checked before anything is allocated.
//
// # Schedules
//
// LaunchConfig.Schedule runs blocks, thread starts and wake-ups in default,
// reverse or seeded random order, to shake out order-dependent kernels;
// with LaunchConfig.Deterministic the same seed gives the same interleaving on
// every run, so a race report can be reproduced.
//
// # Observing
//
// An [Observer] set in [LaunchConfig] sees every access, fence, completed barrier
// and the start and end of each launch and block, inline on the thread's
// goroutine. Package race implements it; with none set, an access pays one
// nil check. A device's observer (DeviceConfig.Observer) that is also a
// [HostObserver] sees the host's copies and fills of the device's memory
// too, since a launch running beside them may use that memory.
//
// # Errors
//
// An invalid configuration, a nil or zero Device, or a nil context is
// rejected before any thread runs. A thread that indexes out of range,
// accesses another device's buffer, misuses an operation, panics or
// calls runtime.Goexit ends with a [ThreadError] naming its coordinates
// and the kernel's file:line; a panic stops the whole launch and releases
// every barrier. Launch joins every thread's error, one per distinct
// error and line, counting the threads that made it ([ThreadError]
// Threads). Go cannot recover two failures, and neither can the runtime:
// infinite recursion in a kernel (fatal error: stack overflow) and an
// allocation past the machine's memory (runtime: out of memory) end the
// process. Every error and report writes coordinates as
// threadIdx and blockIdx in the form (x,y,z): "thread (3,0,0) of block
// (1,0,0)", and a kernel line as "pkg/file.go:12", the file relative to
// the root of its Go module ([Site.String]): thread errors, stall
// listings, divergence errors and package race's reports alike.
package gpu
