// Package warpguard runs CUDA-style kernels as grids of emulated GPU threads
// in Go and catches the races GPU programmers actually write: an atomic,
// fence or lock of too narrow a scope, a missing __syncwarp under
// independent thread scheduling, a cooperative-groups sync of the wrong
// group. This package holds no code; it is the map of the module.
//
// # Packages
//
//   - [github.com/warpguard/warpguard/scope]: the scope vocabulary (thread,
//     warp, block, device, system) and which scope covers two threads.
//   - [github.com/warpguard/warpguard/gpu]: the runtime. Devices, buffers,
//     shared memory, launches, scoped atomics, fences, barriers, warp
//     intrinsics and cooperative groups, and the Observer seam.
//   - [github.com/warpguard/warpguard/race]: the scoped race detector, an
//     Observer with two families (the exact family, scoped happens-before,
//     by default; the IGUARD family, iGUARD's published rules, for
//     comparisons), and the test helper that fails a test on a scoped race
//     ([github.com/warpguard/warpguard/race/racetest]).
//   - [github.com/warpguard/warpguard/race/oracle]: a trace recorder and a
//     happens-before oracle, by the definition and for small kernels, that
//     judges detectors.
//   - [github.com/warpguard/warpguard/race/kind]: the race kinds, a leaf
//     package that kernels and reports name races by.
//   - [github.com/warpguard/warpguard/race/report]: the race reports and
//     their JSON form, a leaf package that race.Report and race.Side name.
//   - race/internal/hb: the exact family's checking engine, the default:
//     scoped happens-before with sparse vector clocks.
//   - race/internal/iguard: the IGUARD family's checking engine.
//   - race/internal/shared: what both families use: the site cache, memory
//     keys, the report sink and halting.
//   - [github.com/warpguard/warpguard/kernels]: GPU-style algorithms and the
//     ScoR suite, each with a sequential reference and race-injection
//     switches.
//   - [github.com/warpguard/warpguard/kernels/gen]: seeded random kernels
//     for differential testing against the oracle.
//   - [github.com/warpguard/warpguard/kernels/gen/difftest]: runs a
//     generated kernel under a detector configuration and the oracle and
//     lists where they disagree.
//   - [github.com/warpguard/warpguard/kernels/warp] and
//     [github.com/warpguard/warpguard/kernels/block]: warp and block
//     collectives (reduce, scans, loads and stores, radix rank and sort,
//     histogram) a user's kernel calls, CUB's WarpScan and BlockScan and
//     friends.
//   - [github.com/warpguard/warpguard/kernels/device]: device-wide
//     primitives on a user's buffers, one call each (reduce, scans,
//     histogram, select, partition, radix sort, run-length encode,
//     segmented reduce), race-checked with the launch options a user's own
//     launch takes.
//   - [github.com/warpguard/warpguard/bench]: the suite and benchmark
//     harness behind the warpguard command (bench/cmd/warpguard);
//     [github.com/warpguard/warpguard/bench/gorace] holds plain-Go twins of
//     the large kernels, timed with and without Go's -race.
//
// # Names
//
// One rule: a name is CUDA's name for the thing at the level its package
// stands for, and the package names the level.
//
//   - Inside a kernel (package gpu), CUDA's spelling in Go case. A Dim3 takes
//     the built-in variable's name (ThreadIdx, BlockIdx, BlockDim, GridDim);
//     a linear number takes cooperative groups' name for it, "rank" within
//     what it names: Thread.ThreadRank (thread_block::thread_rank),
//     Thread.BlockRank (grid_group::block_rank), Tile.MetaGroupRank; the
//     thread's number in the grid is GlobalID, the warp's Warp and
//     GlobalWarp, the lane's Lane. Intrinsics keep CUDA's names (ShflSync,
//     BallotSync, SyncThreads, ThreadFence); cooperative-groups calls keep
//     cg::'s (Reduce, InclusiveScan on a group). A launch is described by a
//     LaunchConfig (cudaLaunchConfig_t), a device by a DeviceConfig.
//   - Primitives take CUB's names, the package standing for CUB's class
//     prefix: warp.Reduce is WarpReduce, block.Reduce BlockReduce,
//     device.Reduce DeviceReduce::Reduce.
//   - A catalog entry of package kernels is built by a function named for
//     its catalog name, group first: kernels.LibReduce is "lib/reduce",
//     kernels.ScorReduction "scor/reduction", kernels.IguardThreadLock
//     "iguard/thread-lock". An Entry is one catalog entry; a kernels.Run is
//     an entry's input prepared on a device.
//   - Package bench measures a Case (one configuration of one entry) and
//     gets an Outcome (what running it once gave). An interface a package
//     declares for another package's type takes that type's name
//     (bench.Detector is what bench needs of a race.Detector).
//
// Renamed identifiers of package gpu stay as deprecated aliases
// (Thread.Rank, Thread.Block, Config); the catalog and harness names
// changed outright.
//
// # Where to start
//
// Read the examples of package gpu (ExampleDevice_Launch, a SAXPY), then
// run the suite: go run ./bench/cmd/warpguard suite.
package warpguard
