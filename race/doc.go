// Package race is a scoped race detector for kernels run by package gpu: it
// reports the races that come from synchronization of the wrong scope — a
// block-scope atomic or fence used across blocks, a missing __syncwarp under
// independent thread scheduling, a lock whose scope or protocol does not
// protect the data — as well as plain missing fences and barriers.
//
// A [Detector] implements [gpu.Observer]. Give it to a launch through
// gpu.LaunchConfig.Observer; after the launch, [Detector.Reports] lists the races
// it saw. Package racetest runs a launch under a detector and fails a test
// with every report, as `go test -race` does for Go data races; a detector
// in gpu.DeviceConfig.Observer checks every launch of its device. The
// WARPGUARD environment variable configures detectors as GORACE configures
// Go's (see [ParseEnv]).
//
// Two families of detector decide races ([Family]). The default, Exact,
// decides by scoped happens-before, PTX's notion of a data race: every
// report is a race of the execution that ran, and every race that
// execution had is reported, on every executor and any number of cores,
// as `go test -race` is for Go. IGUARD decides by iGUARD's published rules
// (SOSP'21) and is kept as that detector, for comparison and for its
// contention optimizations, each switchable and counted; it passes some
// races (a reader that never acquires what a writer's fence published)
// and reports some correct code. The table below says where they differ.
//
// # The Exact family (the default)
//
// The Exact family ("exact" in [Config], the zero Options; "precise" is
// its earlier name) decides by a model: PTX's notion of a data race, cut
// down to the operations package gpu has, less one term of its causality
// order and one of its release patterns (below). On the execution it observes,
// it reports a race on a granule if and only if the execution has one
// there, up to the first race on each granule (after a race the granule
// is checked no more: the state a race leaves may hide later ones). So
// the set of granules on which it finds a race is the set the model
// gives; [Detector.Reports] lists each race's kind and pair of lines
// once, as `go test -race` does, and Stats.Repeated counts the races on
// other granules that it did not list again. Package
// race/oracle decides the same by the definition alone, and the
// differential tests hold the family to it on thousands of generated
// kernels, run deterministically and in parallel.
//
// The model orders events by happens-before, the transitive closure of:
//
//   - program order within a thread;
//   - barriers: a completed __syncthreads (and its count/and/or forms),
//     __syncwarp(mask), or cooperative-groups sync of a block, tile,
//     coalesced group or grid orders everything its participants did
//     before it before everything they do after it. Warp intrinsics that
//     exchange values (shuffles, votes, match, reduce) order no memory;
//   - host order: a launch starts knowing every launch that returned
//     before it started;
//   - scoped synchronizes-with: a release pattern of thread A (a release,
//     acq_rel or seq_cst store or read-modify-write of scope s, or a fence
//     of scope s then a strong write) is ordered before an acquire pattern
//     of thread B (an acquire, acq_rel or seq_cst load or read-modify-write
//     of scope s', or a strong read then a fence of scope s') when the read
//     returns the value of the write, or of a read-modify-write of the
//     write's release sequence (the read-modify-writes of that location
//     that follow it, by any thread), and both s and s', and the scopes of
//     the write and the read, include both threads;
//   - the fence.sc order (PTX's Fence-SC order): Thread.Fence and the
//     ThreadFence calls are fence.sc, as __threadfence* compile on sm_70
//     and later, and the fence.sc operations of a run are totally ordered
//     (the order the runtime reported them in, one device-wide order every
//     sequencing observer shares); of two in that order whose scopes each
//     include the other's thread, the earlier is ordered before the later.
//     A seq_cst operation (gpu.Ref with gpu.SeqCst) is a fence.sc of its
//     scope followed by the operation as acquire, release or acq_rel.
//
// Thread.FenceAcqRel is PTX's fence.acq_rel: it orders through the
// patterns above only, so a kernel whose only ordering is two such fences
// with no flag observed between them is reported, while the same kernel
// with __threadfence() is judged by the order its fences ran in: two
// fence.sc that ran in the other order would order the other way, and the
// verdict is the run's. A Dekker-style kernel with __threadfence() (each
// thread raises its flag, fences, and enters its weak critical section
// only if the other's flag is 0, after a second fence that acquires the
// other's last section, then fences and lowers its flag) is clean in every
// run; without the second fence it is clean only in the runs whose
// fence.sc order orders the sections (Example_dekker). A scope includes two
// threads as [scope.Scope.Covers] says. Volatile accesses are strong and
// relaxed at system scope; weak accesses are not strong.
//
// One term of PTX's causality order is left out: its observation order.
// PTX also orders a strong write before whatever a morally strong read of
// its value (or of a read-modify-write chain that continued it) happens
// before, so a thread that read a counter with an atomic may then write
// it plainly. The model orders only through the patterns above, and such
// a pair is reported: the plain reset of the counter in the CUDA
// Programming Guide's __threadfence() example (count = 0 after the last
// block's atomicInc read it) is a MissingDeviceFence, whose evidence says
// so. Reset with a strong write whose scope includes the incrementing
// threads (AtomicExch, AtomicStore, or StoreVolatile), which is morally
// strong with their atomics and right under both. And one of PTX's
// release patterns is left out: a release operation on a location
// followed in program order by a strong write of the same location
// (st.release, then st.relaxed) releases, in PTX, what the first
// released; the model takes the later write as releasing only what the
// thread's fences release, so a reader that acquires its value is not
// ordered after what preceded the release store, and the pair is
// reported. Give the later store release order too (StoreRelease, or a
// Ref store with gpu.Release), which is right under both.
//
// The warp-synchronous rule: two volatile accesses of lanes of one warp
// are not morally strong. PTX calls the pair morally strong, but the
// pre-Volta idiom it allows, lanes reading each other's volatile shared
// memory with no __syncwarp, breaks under independent thread scheduling,
// so the family reports such a pair that happens-before does not order as
// [MissingSyncwarp]. Volatile stays strong between warps and blocks,
// where polling a flag is the idiom; atomics stay strong between lanes
// (warp-aggregated atomics are correct); and release/acquire patterns
// and __syncwarp order lanes as they order any threads, so an intra-warp
// handoff through an atomic or release/acquire flag is clean. A volatile
// flag one lane sets and another polls, and a volatile store several
// lanes run (`*changed = true`), are reported under the rule: the report
// names the fix, atomic accesses of block scope, as it names the split
// of a statement such as `s[i] += s[i+16]` around a __syncwarp.
//
// Two accesses conflict when they touch the same granule from different
// threads and at least one writes (a failed CAS only reads). The family's
// granule of a typed buffer is its element, of any size: every access is
// one whole element, so finer granules would check an 8-byte access
// twice for one verdict; dynamic shared memory, whose views alias, has
// granules of Options.Granularity (4 bytes unless set, or WARPGUARD's
// granularity=N), so two threads writing neighbouring bytes of it within
// one granule conflict, though CUDA makes each byte its own location:
// Granularity 1 checks each byte apart, for more metadata. A conflicting
// pair is a data race unless happens-before orders it or it is morally
// strong: both strong, each of a scope that includes the other's thread,
// and not both volatile in one warp. A race of two strong accesses is
// [ScopedAtomic], but for the warp-synchronous rule's; any other is named by
// the synchronization the two threads' places call for: [MissingSyncwarp]
// in one warp, [MissingBlockFence] in one block, [MissingDeviceFence]
// across blocks (and between a host copy and a launch). The family infers
// no locks: a lock is correct when its acquire and release patterns order
// the critical sections, so it never reports [ImproperLocking]; a lock
// whose protocol or scope is wrong is reported by the kind its critical
// sections' places call for, or [ScopedAtomic] for the lock word itself.
// A missing __syncthreads is [MissingSyncwarp] for two lanes of one warp
// and [MissingBlockFence] for two warps of one block: the kind names the
// narrowest scope holding both threads, not the instruction to add.
// Reports name both sides, and the evidence says what was missing and
// which synchronization would order the pair, in CUDA's words: a
// __syncwarp with both lanes, a __syncthreads both threads pass (a block
// fence alone orders no other thread), a fence of scope S after the write
// and an acquire of scope S by the reader, or a wider atomic scope.
//
// Read-only views (gpu.ReadOnly: CUDA's const T* __restrict__, or __ldg)
// carry a promise: no element of the view is written while a launch that
// reads through it runs. The family checks the promise instead of the
// loads, which then cost a lookup of the launch's views and record
// nothing. A write of an element of a view that does not happen before
// the reading launch started (one of that launch, even after a barrier,
// of a launch running beside it, or a host copy made meanwhile) is
// [ReadOnlyWritten], whether the write or the first load comes first; a
// write by a launch that started after the reading launch ended keeps
// it. A read races with writes only, and every write that could race
// with such a load breaks the promise, so no race is lost. The IGUARD
// family checks these loads as plain loads.
//
// # Where the families disagree
//
// On purpose:
//
//	pattern                                              iguard   exact    why
//	writer fences, sets a flag; reader spins with        clean    race     the reader has no acquire pattern
//	  relaxed loads, no fence, then reads
//	__syncthreads, leader alone fences and sets a flag;  race     clean    the barrier makes the leader's
//	  another block acquires and reads all threads' data                   fence cumulative
//	iGUARD's grid barrier as printed (leader-only        race     race     the waiter's missing acquire,
//	  fence, waiter spins on a volatile, no fence)                         which the evidence names
//	volatile flag, device fence on each side             race     clean    volatile accesses are strong:
//	                                                                       the flag's pair is morally strong
//	3-hop chain, block-scope fence in the middle hop     clean    race     the middle hop's scope does not
//	                                                                       include the first writer
//	lanes write shared memory, __ballot_sync or          clean    race     value-exchanging intrinsics
//	  __shfl_sync (no __syncwarp), read each other's                       order no memory
//	a plain read, then its thread's atomic, then other   clean    race     the read still races with the
//	  threads' atomics on the word                                         other threads' atomics
//	ScoR's volatile data (stores under locks, published  race     clean    volatile pairs are morally strong
//	  with too narrow a fence)                                             (between blocks)
//	warp-synchronous reduction over volatile shared      race     race     the warp-synchronous rule: PTX
//	  memory, no __syncwarp                                                calls it no race, Volta breaks it
//	Dekker with acq_rel fences (FenceAcqRel): raise      clean    race     no fence follows the flag read
//	  flag, fence, enter if the other's is 0                               before the critical section
//	an element of a read-only view written, then a       clean    race     the view promises no write while
//	  barrier, then read through the view                                  the launch runs (ReadOnlyWritten)
//
// And two the model leaves out (above):
//
//	blocks atomicInc a counter; the one whose increment  clean    race     PTX orders it through the last
//	  read the last resets it with a plain store                           atomicInc's read (observation)
//	writer: data, st.release flag=1, st.relaxed flag=2;  clean    race     PTX's release pattern "release,
//	  reader acquires flag==2, reads data                                  then a strong write of M"
//
// Package kernels records, for every suite kernel where the families
// differ, the Exact family's verdict and its reason.
//
// # How the Exact family checks
//
// Package race/internal/hb checks with vector clocks that do not grow with
// the grid. A thread keeps its own clock and one vclock of what it knows,
// shared with the threads it last met at a barrier; a block-wide barrier
// folds the block's threads into one entry (the block, up to its k-th
// barrier), so a vclock holds an entry per block it heard of and per
// thread that synchronized with its owner since that thread's last block
// barrier: at worst it grows with the grid's blocks, never with its
// threads.
// A fence keeps a view (the vclock and the thread's epoch), which a
// strong write after it publishes in its location's release state,
// joined by the threads each release reaches: the launch, one block or
// one warp. A strong read joins what reaches it into its thread's pending
// acquires, which a fence of adequate scope takes in. The shadow of a
// granule keeps, FastTrack-style, the epochs of the accesses a later one
// may still race with: an access ordered after an earlier one drops it
// when every later race with the earlier one would be a race with it too.
// Strong accesses of device scope, any two of which are morally strong,
// the strong accesses of block scope of one block, likewise, and weak
// reads, which no read conflicts with, are kept one per thread in a set
// per class, which an access of the same class updates through the set's
// index once it holds more than 16 members (32 for a set of weak reads, so
// that a tile element read by a row of threads between barriers is
// scanned rather than indexed) and without a check against the others
// (Stats.Pairs counts the records checks do compare one by one). A set
// whose members each followed the one before (a word each holder of a
// lock reads and writes in turn) is checked through its last member: an
// access whose thread knows that member follows them all.
// A granule touched by one thread keeps that access alone, with no
// per-granule state beside it, until a second access needs one; a weak
// access that repeats its thread's last record there at the same epoch
// (a write, or a read after a read, in the list or the set of weak reads)
// is neither checked nor recorded, FastTrack's same-epoch case, nor is a
// strong access that its thread's member of the wide or block set
// repeats exactly (a poll of a flag, a spin lock's failed CAS, relaxed
// atomicAdds to one counter, between releases) (Stats.Repeats counts
// both). A weak read of a granule its thread read or wrote weakly at the
// same epoch, among the granules it remembers (two in each of sixteen
// sets, by the granule's low bits), is settled by the thread alone,
// with no page lock (Stats.Locks counts the checks that took one): the earlier access is still recorded, since
// only an access that knows the thread's epoch drops it, and a thread
// that released starts a new epoch. Memory
// is bounded by the resident blocks' threads plus the shadow of the
// memory touched. A launch that starts after the last one ended reuses
// that cohort's shadow of global memory, emptied page by page as it is
// visited, if the collector has not reclaimed it yet (Stats.Pages counts
// the pages made); MetadataBytes counts a shadow only while a launch
// uses it. No lock orders every event: each granule's accesses
// are checked under a mutex of their shadow page, so accesses of
// different pages run in parallel, and a thread's own state is changed
// only by its own calls and by the barriers that hold it.
//
// A lock passed between many threads with no barrier makes each holder's
// vclock hold an entry per past holder. Joins do not grow with them. A
// vclock's thread entries are kept in immutable chunks, one per run of 16
// thread ids, and its chunks in immutable bands, one per run of 16
// chunks, each shared by the vclocks that hold the same entries there: a
// join copies only the runs in which its inputs differ, with their bands'
// lists of chunks, and a covers check skips the bands and runs both
// share. A release or fence that adds only its holder's epoch to the
// vclock it extends copies no run: the epoch goes to the new vclock's
// tail of up to 16 entries, which shares the old one's bands, and a full
// tail is folded into copies of the runs it touches. And a large vclock
// belongs to a lineage, a chain of vclocks each covering the one before;
// a lock's releases form one (each holder releases what it acquired and
// its own epoch, and a thread's next release is built on its last), so a
// holder acquiring the latest release finds by its place in the chain,
// without a walk, that it covers what the holder knew, and the lock's
// release state finds the same of the release it already held. A vclock
// built from members that are not their chain's last starts a chain of
// its own that remembers where it forked, so it covers those members
// without a walk too; and a vclock keeps the places of the last few
// chains of others that a walk found it covers, which the vclocks built
// on it inherit, so a fence's next link does not prove again what the
// one before it proved. What is left grows with the runs of thread ids a
// vclock holds, not their entries. The family still costs
// more than IGUARD's on lock-heavy kernels (BENCHMARKS.md has the
// numbers); Stats.Joins counts the vclock entries joins walked or wrote.
//
// The family's ablations, in [Config]'s suffixes: "exact:full" gives
// every granule its full state at its first access (no first records),
// "exact:flat" keeps no lineages (every covers check walks the runs its
// vclocks do not share). It has no
// coalescing or backoff to switch off: its metadata locks are a
// sync.Mutex per shadow page, held for one granule's check, and Go's
// mutex already spins briefly and then parks a waiter, so there is no
// spin on an entry to back off from (Stats.Contended and Waits stay 0);
// and iGUARD's warp coalescing, a lane skipping a check that repeats a
// warp-mate's, would drop the lane's own record, which happens-before
// needs, since the lanes are different threads: an access ordered after
// one lane and not the other races with only one of them.
//
// Reads-from is exact on every executor and any number of cores: a
// detector of the family is a [gpu.Sequencer], so the runtime performs
// each store, read-modify-write and strong load of an element under the
// element's page lock, one of the engine's striped mutexes, and the check
// runs before the mutex is unlocked; the engine, told by
// gpu.Access.Sequenced that the runtime holds it, does not lock it again.
// The order in which the engine checks an element's writes and strong
// reads is then the order in which they took effect, and a strong read
// acquires from the write it read, with no waiting and no guess from
// values. Weak loads are not sequenced (the engine takes the page lock
// only for their check): nothing reads from a load, and a
// weak load that overlaps a write races with it in either order. The
// oracle's recorder sequences the same way, so parallel runs are judged
// as deterministic ones are.
//
// One happens-before covers every launch the detector observes, on any
// device. Launches that overlap are checked against each other: their
// threads are concurrent except as scoped synchronization orders them, a
// thread's place names its launch (block 0 of one launch is not block 0
// of another), and no access is exempt for having come before the other
// launch started. A launch that starts after another returned is ordered
// after all of it (host order), even while a third runs, and after
// everything its threads were ordered after, the third's events
// included; what a thread knows of it passes on through the thread's
// releases. Memories of different devices never alias. A run of
// overlapping launches (from one that started while none ran) numbers at
// most 2^30 threads in all: a launch past that waits for the run's
// launches to end and starts a new run, and a launch that starts while
// one waits waits too; a wait that lasts a minute (a running launch waits
// for the waiting one), or that its launch's context ends, fails the
// waiting launch with an error naming the launches it waited for (and
// wrapping the context's error). A host copy or fill (CopyIn, CopyOut, Fill) of a
// device's memory made while a launch runs, seen by a Detector set as the
// device's observer ([gpu.HostObserver]), is the access of a host thread
// that only host order orders with launches: it races with a running
// launch's unordered accesses to the same words. A thread that exits
// before a barrier is counted as a participant.
//
// # The IGUARD family
//
// The IGUARD family (Options.Family IGUARD; the configurations "central",
// "plain", "coalesce", "backoff" and "opt" below) follows iGUARD (SOSP'21,
// Table 2) and ScoRD (ISCA'20), in package race/internal/iguard: every
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
// Memory orders: iGUARD knows one kind of fence, so a fence.sc and a
// fence.acq_rel count alike, and the fence.sc order orders nothing more.
// An ordered read-modify-write counts as the fence its order implies: one
// that releases (release, acq_rel, seq_cst) as a fence of its scope before
// it, as a release store does; one that acquires (acquire, acq_rel,
// seq_cst) as a fence of its scope after it, which also validates a lock
// its CAS took. A seq_cst operation is also preceded by its fence.sc. The
// runtime reports a read-modify-write after it took effect, with the
// value it read, so a thread of another block that reads the new value
// before the report may be checked before its release counts: the family
// does not sequence accesses (it infers from values), and that window
// can only add a report, never lose one.
//
// Like iGUARD, the family judges a pair ordered when the earlier thread
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
// launch with gpu.LaunchConfig.Deterministic.
//
// Where the family departs from iGUARD's code, on purpose:
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
// Launches that overlap (started from two goroutines on one detector) are
// ordered by nothing but host order, a launch that starts after another
// returned following it, and by atomics of device scope or wider. The
// family checks them against each other: while two launches run at
// once their global accesses also go to a table they share, and a launch
// that ran alone before another started beside it checks what it did
// until then against the table when it ends, so no access is exempt for
// coming before the second launch started; such a race is reported at the
// first launch's end, its side's site known only with History. Launches
// the host runs one after another record nothing in the table. A Detector
// set as a device's observer is also a [gpu.HostObserver]: a host copy or
// fill (CopyIn, CopyOut, Fill) of a word a running launch uses is a weak
// access of a host thread, which only host order orders with the launch,
// and is reported as a race with it.
//
// # What the IGUARD family costs
//
// Most of a check's cost is one lock on the granule's metadata;
// a repeated access by the same thread with no synchronization since skips
// the lock, and so does a load or atomic that repeats the check a lane of
// the same warp just made (warp coalescing, iGUARD §6.5, adapted to lanes
// that are not in lockstep). A check that finds its entry
// locked backs off exponentially up to a cap that grows with the warps
// launched, then yields. A granule's first access takes no
// lock at all: its metadata starts as one word holding the access
// itself, packed, and becomes a full entry only when another access
// needs one (Options.FullEntries turns this off). A full entry
// is one cache line, 64 bytes (104 with LockMutex, which keeps a mutex
// beside it): its records are packed, with every counter whole; a record
// whose counters outgrow their fields (a block past 2^16 barriers, say)
// moves its entry's records to a wide array beside the page
// (Stats.Widened counts such entries).
// So a granule touched once, as most of a big kernel's are, costs 8
// bytes. A memory most of whose granules needed entries anyway gets
// them from the first touch in the detector's next launches. With
// History (Options.History) the word also names the access's call path,
// by a 16-bit handle of its slot in the site cache, so history keeps
// first records too; its counters then have narrower fields, and an
// access past them (a thread beyond 2^21, a block past 2^9 barriers)
// takes its entry at once, 104 bytes with history's sites. Central
// gives every granule its entry at once.
// Metadata is allocated in pages on first touch and reused across
// launches, as are the blocks' synchronization states. History adds a
// site lookup per access: a few frame-pointer loads and one cache read,
// keyed by the call path; file:line and the path's call stack are
// resolved once per path, the first time it is seen.
// The family's checks, metadata and the mechanisms above live in
// package race/internal/iguard; the site cache and the report sink both
// modes share, in race/internal/shared.
//
// # What the contention counters measure
//
// [Stats] counts, in Locks, the checks that took their entry's lock
// (first touches, repeats and coalesced accesses take none) and, in
// Contended, those that found it held: one each, whether the check then
// spun tightly or backed off for a hundred steps (the steps count in
// Waits). On a GPU thousands of warps queue on one entry; here threads
// run on GOMAXPROCS processors, so a check finds its entry held only
// when another processor is checking it at that moment, or when Go's
// scheduler preempted a goroutine inside a check on it: the scheduler
// preempts a goroutine that has run for a time slice wherever it is,
// and the entry then stays locked until that goroutine runs again. With
// one processor every contended acquisition is of the second kind.
// While the holder waits to run, every goroutine that reaches the entry
// counts one. A tight spin keeps its processor until it too is
// preempted, so few reach the entry; backoff yields the processor at its
// cap so that the holder can run, and the goroutines that run meanwhile
// may reach the entry too. So backoff alone can count more contended
// acquisitions than plain while it waits less: the count measures how
// many checks met a held entry, not how long they waited (WaitNs). Warp
// coalescing cuts the count where it cuts the locked checks of a hot
// word: it skips a lane's load or atomic while the word's last update is
// its warp-mate's check of the same kind, so it cannot skip the checks
// of a word that warps on two processors update in turn, nor a lane's
// atomic add to a word its warp-mate loaded after its own add (each
// lane's arrival at a barrier's counter, then its spin on it): those are
// checked and locked, as each warp's one check of them is in iGUARD.
//
// # Configurations
//
// Each contention optimization is an option, and [Config] names the
// combinations benchmarks compare: "off", "central" (one checking
// goroutine per launch, Barracuda's design), "plain" (iGUARD without its
// optimizations), "coalesce", "backoff" and "opt" (both), all of the
// IGUARD family, and "exact", the default. Every IGUARD configuration
// reports the same races; [Detector.Stats] counts checks,
// first touches, lock acquisitions, contention, backoff and coalesced
// accesses.
package race
