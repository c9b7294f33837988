// Package race is a scoped race detector for kernels run by package gpu: it
// reports the races that come from synchronization of the wrong scope — a
// block-scope atomic or fence used across blocks, a missing __syncwarp under
// independent thread scheduling, a lock whose scope or protocol does not
// protect the data — as well as plain missing fences and barriers.
//
// A [Detector] implements [gpu.Observer]. Give it to a launch through
// gpu.Config.Observer; after the launch, [Detector.Reports] lists the races
// it saw. Package racetest runs a launch under a detector and fails a test
// with every report, as `go test -race` does for Go data races.
//
// # Algorithm
//
// The detector follows iGUARD (SOSP'21, Table 2) and ScoRD (ISCA'20): every
// 4-byte granule of global and shared memory remembers its last writer and
// its last accessor, with each one's fence counters, block barrier epoch,
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
// Each launch starts from clean metadata: a kernel boundary orders
// everything, as on a GPU. Reports accumulate across launches until
// [Detector.Reset].
package race
