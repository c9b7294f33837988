// Package oracle judges race detectors: it records every event of a launch
// and decides, by the definition, which memory granules the recorded
// execution races on. It shares no checking code with package race; it is
// meant for small kernels, where it is the reference a detector's verdicts
// are compared with (see Cost).
//
// [Launch] runs one kernel recorded and returns the verdict, a [Result]
// listing one [Race] per racing granule. To judge a launch made elsewhere,
// give it a [Recorder] as its observer and pass its [Trace] to [Analyze].
//
// # Recording
//
// A [Recorder] is a gpu.Observer and a gpu.Sequencer: the runtime performs
// each store, read-modify-write and strong load under a mutex of the
// recorder's for its element and reports it before unlocking, so for each
// location the order in which the recorder sees those events is the order
// in which they took effect in memory, on any executor and under any
// schedule, Deterministic or parallel. "The write a strong read reads
// from" is the last write to that location the recorder saw before the
// read. (Weak loads are not sequenced: nothing reads from them, and a
// weak load that overlaps a write races with it in either order.)
//
// # Happens-before
//
// [Analyze] builds the happens-before relation of one launch's trace as the
// transitive closure of:
//
//   - program order within each thread;
//   - barrier edges: for each completed __syncthreads (and its
//     count/and/or forms), __syncwarp(mask), or cooperative-groups sync of
//     a block, tile, coalesced group or the grid, every event of a
//     participant before the barrier happens before every event of a
//     participant after it. Warp intrinsics that exchange values
//     (shuffles, votes, match, reduce) order no memory and add no edge;
//   - launch boundaries: each launch is judged on its own, since a launch
//     the host started after another returned is ordered after all of it;
//   - scoped synchronizes-with. A release pattern of thread A is a release
//     store w of scope s, or a fence of scope s followed in program order
//     by a strong write w. An acquire pattern of thread B is an acquire
//     load r of scope s', or a strong read r followed in program order by
//     a fence of scope s'. When r reads the value of w, or of a
//     read-modify-write in w's release sequence (the unbroken run of
//     read-modify-writes, by any thread, that follows w in the location's
//     order), and s and s' both cover A and B, and the scope of w covers B
//     and that of r covers A, then the release (w or its fence)
//     happens before the acquire (r or its fence).
//
// Strong operations are volatile accesses (relaxed at system scope),
// atomic loads and stores and read-modify-writes of every order. A
// release, acq_rel or seq_cst store or read-modify-write is a release
// pattern by itself, an acquire, acq_rel or seq_cst load or
// read-modify-write an acquire pattern. A fence of order gpu.AcqRel is
// PTX's fence.acq_rel and acts through the patterns above only; a fence of
// order gpu.SeqCst (Thread.Fence, __threadfence) is fence.sc and adds
// PTX's Fence-SC order: the fence.sc operations of a trace, in the order
// they were recorded (beside a detector that sequences, the runtime
// reports two fence.sc operations whose scopes share an instance under
// that instance's mutex, so the recorder and the detector see such pairs
// in one order), are totally ordered, and each happens before every
// later one whose scope and its own each include the other's thread. A seq_cst access is
// recorded after the fence.sc the runtime reports before it.
//
// # Races
//
// Two accesses conflict when they come from different threads, touch
// overlapping bytes, and at least one wrote in the recorded execution. A
// CAS that failed wrote nothing: it is a strong read, here as in C++,
// though gpu.Op.Writes counts it as a write, as the default mode and
// iGUARD do. A conflicting pair is morally strong when both are strong,
// touch the same bytes, and each one's scope covers the other's thread
// (scope.Scope.Covers), except two volatile accesses of lanes of one
// warp: the warp-synchronous rule. PTX calls such a pair morally strong,
// but the pre-Volta idiom it allows (lanes reading each other's volatile
// shared memory with no __syncwarp) breaks under independent thread
// scheduling, so here it races unless happens-before orders it, and is
// named missing-syncwarp. Volatile stays strong between warps, where
// polling a flag is the idiom, and atomics stay strong between lanes. A
// conflicting pair that is neither morally strong nor ordered by
// happens-before either way is a data race. [Result] lists
// the racing 4-byte granules, per memory: global buffers and each block's
// instance of a shared array apart.
//
// # Cost
//
// The happens-before relation is kept whole, a bit per pair of events, so
// a trace of n events takes n²/8 bytes and time to match: tens of
// thousands of events at most. Nothing else grows faster than the events
// times the threads. Two scans keep summaries instead of walking pairs,
// and each is tested against a literal walk of the definition on random
// traces: a location's release sequence keeps, per writing thread and
// per scope that could join the writer and a reader, the latest release
// pattern (an earlier one of the same thread happens before it), so a
// read of a lock polled thousands of times with atomicExch does not walk
// the polls; and the first race of a granule is sought among groups of
// one thread's alike accesses, in each of which those that happen before
// a later access are a prefix.
//
// A thread that exits before a barrier its block later completes is still
// counted among the barrier's participants: the recorder does not see
// thread exits. Kernels judged by the oracle should reach their barriers
// uniformly, as CUDA requires.
package oracle
