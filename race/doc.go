// Package race is a scoped race detector for kernels run by package gpu: it
// reports the races that come from synchronization of the wrong scope — a
// block-scope atomic or fence used across blocks, a missing __syncwarp under
// independent thread scheduling, a lock whose scope or protocol does not
// protect the data — as well as plain missing fences and barriers.
//
// A [Detector] implements [gpu.Observer]. Give it to a launch through
// gpu.Config.Observer; after the launch, [Detector.Reports] lists the races
// it saw. Package racetest runs a launch under a detector and fails a test
// with every report, as `go test -race` does for Go data races; a detector
// in gpu.DeviceConfig.Observer checks every launch of its device. The
// WARPGUARD environment variable configures detectors as GORACE configures
// Go's (see [ParseEnv]).
//
// # Algorithm
//
// The detector follows iGUARD (SOSP'21, Table 2) and ScoRD (ISCA'20): every
// 4-byte granule of global and shared memory remembers its last writer and
// its last accessor, with each one's fence count, block barrier epoch,
// warp barrier epoch and held locks at the time of the access. A new access
// is checked, inline on the accessing goroutine and under a lock on that
// granule's metadata only, against the last writer (for a load) or the last
// accessor (for a store or read-modify-write):
//
//   - first access, program order (the same thread, or lanes a __syncwarp
//     ordered), a block barrier or grid sync in between, or two atomics whose
//     scopes cover both threads: no race;
//   - an atomic whose scope does not cover the other thread: [ScopedAtomic];
//   - lanes of one warp with no __syncwarp or fence between them:
//     [MissingSyncwarp] (lanes are never assumed to run in lockstep);
//   - threads of one block whose earlier side executed no fence since:
//     [MissingBlockFence]; of different blocks, no device-scope fence:
//     [MissingDeviceFence];
//   - accesses that are fence-ordered but protected by locks that do not
//     intersect: [ImproperLocking].
//
// Like iGUARD, the detector judges a pair ordered when the earlier thread
// executed a fence of adequate scope after its access ("the writer published
// its write"); it does not check that the later thread observed a flag. The
// comments at each rule say where and why it departs from iGUARD's code.
//
// Because a granule remembers one last writer and one last accessor, an
// access is checked against those, not against every earlier access.
// When several races meet on one word, which pair is reported, and so its
// Kind, depends on how the threads interleaved: on many cores another
// block's store to the word lands between two stores of one warp and
// turns their missing __syncwarp into a missing device fence. A test
// that asserts a kind should give each race a word of its own, or run the
// launch with gpu.Config.Deterministic.
//
// Where this detector departs from iGUARD's code, on purpose:
//
//   - Warp barriers are per-lane vector clocks, advanced only for the lanes
//     a __syncwarp or collective really held, so a partial-mask __syncwarp
//     orders only its mask (iGUARD bumps one counter for the whole warp).
//   - Lanes are never treated as converged at a plain access.
//   - With other blocks among a word's readers, a same-block store needs a
//     device-scope fence (ScoRD); iGUARD checked nothing there.
//   - The sharing bits compare the last reader's counters with its own
//     thread's, not the last writer's; a word never written has no phantom
//     writer; and one more reader of another thread is remembered, so the
//     lanes of a warp-synchronous reduction cannot hide each other's reads.
//   - The atomic scope check is symmetric: either atomic's scope may be
//     too narrow. It applies to pairs no fence orders.
//   - Locksets are exact, locks are inferred as ScoRD does (a successful
//     CAS(0→v), then a fence at least as wide as the CAS; an exchange or
//     strong store of 0 releases), and warp and per-thread lock tables are
//     separate.
//   - grid.Sync and cooperative-groups tiles wider than a warp order their
//     threads; iGUARD saw only the instructions they lower to.
//
// Explicit acquire and release operations, which neither paper handles,
// follow PTX's release pattern: a release store of scope s is a fence of
// scope s followed by a relaxed store, so it publishes the thread's earlier
// accesses to every thread s covers, exactly as the fence does in the
// checks. An acquire load whose scope does not cover the releaser fails
// the atomic scope check on the flag itself. This costs nothing beyond a
// fence's count and needs no vector clocks; like the fences it models, it
// trusts the reader to have observed the flag.
//
// Volatile loads count as strong (a poll of a flag is CUDA's idiom), while
// volatile stores count as plain data, which keeps ScoR's verdicts.
//
// Each launch starts from clean metadata: a kernel boundary orders
// everything, as on a GPU. Reports accumulate across launches until
// [Detector.Reset].
//
// # Cost
//
// Most of a check's cost is one lock on the granule's metadata;
// a repeated access by the same thread with no synchronization since skips
// the lock, and so does a load or atomic that repeats the check a lane of
// the same warp just made (warp coalescing, iGUARD §6.5, adapted to lanes
// that are not in lockstep: see coalesce.go). A check that finds its entry
// locked backs off exponentially up to a cap that grows with the warps
// launched, then yields (backoff.go). A granule's first access takes no
// lock at all: its metadata starts as one word holding the access
// itself, packed, and becomes a full entry only when another access
// needs one (first.go; Options.FullEntries turns this off). A full entry
// is one cache line, 64 bytes (104 with LockMutex, which keeps a mutex
// beside it): its records are packed and some of their counters
// narrowed, which packed.go argues can only add reports; a record names
// its thread in 32 bits, so a launch under the detector may have at most
// 2^32-1 threads. So a granule touched once, as most of a big kernel's are, costs
// 8 bytes. A memory most of whose granules needed entries anyway gets
// them from the first touch in the detector's next launches
// (density.go). History (Options.History) and Central keep sites and
// call paths, so they give every granule its entry at once (104 bytes).
// Metadata is allocated in pages on first touch and reused across
// launches, as are the blocks' synchronization states. History adds a
// site lookup per access, cached per call path with the path's call stack.
//
// # Configurations
//
// Each contention optimization is an option, and [Config] names the
// combinations benchmarks compare: "off", "central" (one checking
// goroutine per launch, Barracuda's design), "plain" (iGUARD without its
// optimizations), "coalesce", "backoff" and "opt" (the default). Every
// configuration reports the same races; [Detector.Stats] counts checks,
// first touches, lock acquisitions, contention, backoff and coalesced
// accesses.
package race
