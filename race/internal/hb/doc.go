// Package hb is the engine of package race's Exact family, its default:
// it decides races by scoped happens-before, PTX's notion of a data race
// cut down to the operations package gpu has, and reports a race on a
// granule exactly when the observed execution has one, up to the first
// race per granule. Package race's documentation ("The Exact family",
// "Where the families disagree") states the model, the warp-synchronous
// rule and where it disagrees with iGUARD's rules; this package holds the
// mechanism.
//
// An [Engine] keeps, per thread, its clock and one sparse vector clock of
// what it knows, shared with the threads it last met at a barrier
// (clock.go, thread.go), and, from its first fence or strong read on, its
// fence views and pending acquires (pcold, in its block's states); the
// vector clocks' thread entries in chunks, and the chunks in bands, that
// vclocks share where their entries agree (chunk.go, band.go), with a
// few more entries in a tail where a chain's link extends a vclock by
// its epoch (tail.go), large
// vector clocks in lineages whose members cover the earlier ones, and
// the places their lineage forked from, without a walk (lineage.go), and
// remember, for the vclocks built on them too, the places of other
// lineages a walk found they cover (cover_memo.go), a
// fence's acquires and fence.sc joins made into one vclock (join_all.go,
// fence_sc.go), where a thread that made no access since its clock last
// moved is named by the epoch of its last access, which every lane
// already knows after a __syncwarp, so the fences and barriers of a
// warp-synchronous section make no vclock (pthread.last); per
// granule, FastTrack-style, the accesses a
// later one may still race with (loc.go, set.go, indexed by setindex.go,
// a set of members that followed one another checked through its last,
// set_chain.go) and the release state a strong read acquires from
// (release.go), with a thread's own memory of the granules it accessed
// weakly at its epoch, whose rereads skip the shadow (seen.go), in a
// page table per address space (shadow.go; a sweep makes its pages
// sixteen at a time) whose cells hold a granule's
// one access until a second needs the full state (cell.go; a page whose
// full states outgrow two records makes the next ones with room for
// five), and which the next cohort may reuse (reuse.go), as the launch's
// next block, and the next launch's, reuse an ended block's thread
// states and shadow of shared memory; a reused page gives its cells the full states and sets
// of its last generation, emptied (recycle.go); and builds
// reports whose
// evidence names the synchronization that would order the pair
// (report.go). Launches, blocks and cohorts are cohort.go, the access
// path access.go, barriers barrier.go.
//
// No lock orders every event. An access takes its granules' page locks,
// striped mutexes, one at a time (a weak reread at the thread's epoch
// takes none); a thread's state is its own calls' and
// its barriers' (gpu.Observer holds a barrier's participants while Sync
// runs); a fence.sc publishes under the mutexes of its scope instances'
// slots, and one of device or system scope, whose slot every block
// shares, joins before it takes them (fence_sc.go); the engine's mutex
// guards only the lifecycle and cache misses.
// The engine is a gpu.Sequencer (see [Engine.Sequence]): each element's
// writes and strong reads are performed and checked under its page lock,
// which the runtime takes for them, so reads-from is exact on every
// executor and a sequenced access takes one lock, not two.
//
// The engine imports only downward: race/internal/shared for sites and
// the report sink, race/report and race/kind for what it reports.
package hb
