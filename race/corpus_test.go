package race_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// A corpusCase is one kernel of the detector's own corpus, in the style of
// runtime/race's testdata: a tiny kernel, and whether it races. Each racy
// case has a fixed twin; TestRaceX and TestNoRaceX run them.
type corpusCase struct {
	name          string
	blocks, block int
	cooperative   bool
	expect        []race.Kind // nil for a race-free case
	// precise is the precise mode's verdict where preciseDiffers says it
	// differs from expect.
	precise        []race.Kind
	preciseDiffers bool
	// kernel allocates the case's memory on d and returns the kernel and
	// a check of its output (nil when the output means nothing).
	kernel func(d *gpu.Device) (gpu.Kernel, func() error)
}

// expectIn returns c's verdict in the precise mode if precise is set,
// else in the default mode.
func (c corpusCase) expectIn(precise bool) []race.Kind {
	if precise && c.preciseDiffers {
		return c.precise
	}
	return c.expect
}

// run runs c under every executor with racetest's detector, of the
// default (Exact) family, and checks the verdict: a racy case reports at
// least one race, each of an expected kind and with both sites; a clean
// case reports nothing. TestCorpusConfigs runs c under every
// configuration, the IGUARD family's included.
func (c corpusCase) run(t *testing.T) {
	t.Helper()
	want := c.expectIn(true)
	for _, e := range executors() {
		t.Run(e.String(), func(t *testing.T) {
			rs := c.reports(t, e)
			fps, missed := verdict(want, want != nil, rs)
			for _, r := range fps {
				t.Errorf("unexpected report (want kinds %v):\n%v", want, r)
			}
			if missed {
				t.Errorf("missed the race (want one of %v)", want)
			}
			for _, r := range rs {
				require.False(t, r.Current.Site.IsZero() || r.Previous.Site.IsZero(), "report lacks a site:\n%v", r)
			}
		})
	}
}

// reports runs c once under executor e and returns what the detector saw.
func (c corpusCase) reports(t testing.TB, e gpu.Executor) []race.Report {
	return c.reportsWith(t, e, racetest.New())
}

// reportsWith is reports under a given detector.
func (c corpusCase) reportsWith(t testing.TB, e gpu.Executor, det *race.Detector) []race.Report {
	d := newDevice(t)
	k, check := c.kernel(d)
	cfg := gpu.LaunchConfig{Name: c.name, Grid: gpu.Dim3{X: c.blocks}, Block: gpu.Dim3{X: c.block},
		Cooperative: c.cooperative}
	require.NoError(t, racetest.LaunchFunc(d, det, e)(context.Background(), cfg, k))
	if check != nil {
		require.NoError(t, check())
	}
	return det.Reports()
}

// corpus lists every case, for the totals harness.
func corpus() []corpusCase {
	cs := []corpusCase{
		sharedNeighbour(false), sharedNeighbour(true),
		sharedLane(false), sharedLane(true),
		messagePassing(scope.Device, scope.Device, 2), messagePassing(scope.Block, scope.Block, 1),
		messagePassing(scope.Block, scope.Device, 2), messagePassing(scope.Device, scope.Block, 2),
		blockSyncForGrid(),
		leaderFenceGridBarrier(false), leaderFenceGridBarrier(true),
		warpLocks(false), warpLocks(true),
		reductionTail(nil),
	}
	return append(cs, warpCases()...)
}

// sharedNeighbour: each thread of a 64-thread block writes its shared slot
// and reads the slot 32 ahead (another warp), with or without
// __syncthreads in between.
func sharedNeighbour(barrier bool) corpusCase {
	c := corpusCase{name: "shared-neighbour", blocks: 2, block: 64, expect: kinds(race.MissingBlockFence)}
	if barrier {
		c.name, c.expect = "shared-neighbour-barrier", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		out := gpu.Alloc[int32](d, "out", 128)
		return func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 64)
			r := t.ThreadRank()
			s.Store(t, r, int32(r))
			if barrier {
				t.SyncThreads()
			}
			out.Store(t, t.GlobalID(), s.Load(t, (r+32)%64))
		}, outputIf(barrier, out, func(i int) int32 { return int32((i%64 + 32) % 64) })
	}
	return c
}

// sharedLane: lanes exchange values with their neighbour lane through
// shared memory, with no __syncwarp (an ITS race) or with __syncthreads.
func sharedLane(barrier bool) corpusCase {
	c := corpusCase{name: "shared-lane", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp)}
	if barrier {
		c.name, c.expect = "shared-lane-barrier", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		out := gpu.Alloc[int32](d, "out", 32)
		return func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 32)
			l := t.Lane()
			s.Store(t, l, int32(l*10))
			if barrier {
				t.SyncThreads()
			}
			out.Store(t, l, s.Load(t, l^1))
		}, outputIf(barrier, out, func(i int) int32 { return int32((i ^ 1) * 10) })
	}
	return c
}

// outputIf returns a check that out[i] == want(i) for every i, or nil when
// the kernel is racy and its output undefined.
func outputIf(ok bool, out gpu.Buffer[int32], want func(int) int32) func() error {
	if !ok {
		return nil
	}
	return func() error {
		for i, v := range out.Host() {
			if v != want(i) {
				return fmt.Errorf("out[%d] = %d, want %d", i, v, want(i))
			}
		}
		return nil
	}
}

// messagePassing: a producer writes data and publishes it with a release
// store of scope rel; a consumer in another block (blocks == 2) or another
// warp of the same block (blocks == 1) spins with an acquire load of scope
// acq and reads data.
func messagePassing(rel, acq scope.Scope, blocks int) corpusCase {
	c := corpusCase{name: fmt.Sprintf("release-%v-acquire-%v-%d-blocks", rel, acq, blocks), blocks: blocks, block: 1}
	if blocks == 1 {
		c.block = 33
	}
	switch {
	case blocks == 2 && rel < scope.Device && acq < scope.Device:
		c.expect = kinds(race.MissingDeviceFence, race.ScopedAtomic)
	case blocks == 2 && rel < scope.Device:
		c.expect = kinds(race.MissingDeviceFence, race.ScopedAtomic)
	case blocks == 2 && acq < scope.Device:
		c.expect = kinds(race.ScopedAtomic)
		// Precise: the block-scope acquire does not include the writer's
		// block, so it acquires nothing and the data races too.
		c.precise, c.preciseDiffers = kinds(race.ScopedAtomic, race.MissingDeviceFence), true
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		data := gpu.Alloc[float64](d, "data", 1)
		flag := gpu.Alloc[uint32](d, "flag", 1)
		got := gpu.Alloc[float64](d, "got", 1)
		return func(t *gpu.Thread) {
			switch t.GlobalID() {
			case 0:
				data.Store(t, 0, 3.5)
				flag.StoreRelease(t, 0, 1, rel)
			case blocks*c.block - 1:
				for flag.LoadAcquire(t, 0, acq) == 0 {
				}
				got.Store(t, 0, data.Load(t, 0))
			}
		}, nil
	}
	return c
}

// blockSyncForGrid: every thread writes its element, syncs its block
// (cg::sync(block)) where the grid was meant, and reads an element of the
// other block.
func blockSyncForGrid() corpusCase {
	return corpusCase{name: "block-sync-for-grid", blocks: 2, block: 32, cooperative: true,
		expect: kinds(race.MissingDeviceFence),
		kernel: func(d *gpu.Device) (gpu.Kernel, func() error) {
			x := gpu.Alloc[int32](d, "x", 64)
			y := gpu.Alloc[int32](d, "y", 64)
			return func(t *gpu.Thread) {
				i := t.GlobalID()
				x.Store(t, i, int32(i))
				t.SyncThreads()
				y.Store(t, i, x.Load(t, (i+32)%64))
			}, nil
		}}
}

// leaderFenceGridBarrier is iGUARD's Figure 10, the grid barrier of CUDA
// 11's cooperative groups and cuML's GridSync: every thread writes, the
// block syncs, only the leader fences before arriving at the counter, and
// after the barrier threads read other blocks' writes. Its fences are
// __threadfence(), fence.sc; the leaders' four fences fall in some order,
// and the block whose leader fenced before the next block's leader reads
// that block's writes unordered, in every run.
//
// With allFence every thread fences before the block barrier (the fix
// cuML#4157 asked for), with acq_rel fences
// (cuda::atomic_thread_fence(memory_order_acq_rel, thread_scope_device)):
// the waiters spin on a volatile and never fence after, so under the exact
// family they acquire nothing, in every run. (With fence.sc fences the
// verdict would follow the run's fence order: clean when every thread's
// fence precedes every leader's, racy when a leader fences before a
// writer of the next block does.)
func leaderFenceGridBarrier(allFence bool) corpusCase {
	c := corpusCase{name: "grid-barrier-leader-fence", blocks: 4, block: 64, cooperative: true,
		expect: kinds(race.MissingDeviceFence)}
	fence := func(t *gpu.Thread) { t.ThreadFence() }
	if allFence {
		c.name, c.expect = "grid-barrier-all-fence", nil
		c.precise, c.preciseDiffers = kinds(race.MissingDeviceFence), true
		fence = func(t *gpu.Thread) { t.FenceAcqRel(scope.Device) }
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		x := gpu.Alloc[int32](d, "x", 256)
		y := gpu.Alloc[int32](d, "y", 256)
		arrived := gpu.Alloc[uint32](d, "arrived", 1)
		return func(t *gpu.Thread) {
			i := t.GlobalID()
			x.Store(t, i, int32(i))
			if allFence {
				fence(t)
			}
			t.SyncThreads()
			if t.ThreadRank() == 0 {
				fence(t)
				arrived.AtomicAdd(t, 0, 1, scope.Device)
				for arrived.LoadVolatile(t, 0) != 4 {
				}
			}
			t.SyncThreads()
			y.Store(t, i, x.Load(t, (i+64)%256))
		}, outputIf(allFence, y, func(i int) int32 { return int32((i + 64) % 256) })
	}
	return c
}

// warpLocks is iGUARD's Figure 9: every lane of a warp updates one word
// under a lock, each lane taking its own lock (per-thread locking, so the
// locks protect nothing), or all the same lock. Its fences are
// fence.acq_rel: with fence.sc (__threadfence), an execution whose
// critical sections happened not to overlap is ordered by the fence.sc
// order, and the exact family's verdict would rest on the schedule.
func warpLocks(shared bool) corpusCase {
	c := corpusCase{name: "per-lane-locks", blocks: 1, block: 32,
		expect: kinds(race.ImproperLocking, race.MissingSyncwarp)}
	if shared {
		c.name, c.expect = "one-lock-per-warp", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		locks := gpu.Alloc[int32](d, "locks", 32)
		data := gpu.Alloc[int32](d, "data", 1)
		return func(t *gpu.Thread) {
				id := t.Lane()
				if shared {
					id = 0
				}
				for locks.AtomicCAS(t, id, 0, 1, scope.Device) != 0 {
				}
				t.FenceAcqRel(scope.Device)
				data.Store(t, 0, data.Load(t, 0)+int32(t.Lane()))
				t.FenceAcqRel(scope.Device)
				locks.AtomicExch(t, id, 0, scope.Device)
			}, func() error {
				if got := data.Host()[0]; shared && got != 496 {
					return fmt.Errorf("data = %d, want 496", got)
				}
				return nil
			}
	}
	return c
}

// reductionTail is ScoR's reduction: a tree in shared memory with
// __syncthreads down to 64 values, then warp 0 finishes warp-synchronously.
// Without __syncwarp between its steps (ScoR's code) the lanes race under
// independent thread scheduling; iGUARD found these 5 races.
//
// between, if not nil, runs between the steps: the __syncwarp that fixes
// the race.
func reductionTail(between func(t *gpu.Thread)) corpusCase {
	syncwarp := between != nil
	c := corpusCase{name: "reduction-tail", blocks: 1, block: 128, expect: kinds(race.MissingSyncwarp)}
	if syncwarp {
		c.name, c.expect = "reduction-tail-syncwarp", nil
	}
	c.kernel = func(d *gpu.Device) (gpu.Kernel, func() error) {
		out := gpu.Alloc[int32](d, "out", 1)
		return func(t *gpu.Thread) {
				s := gpu.Shared[int32](t, "sdata", 128)
				r := t.ThreadRank()
				s.Store(t, r, int32(r))
				t.SyncThreads()
				if r < 64 {
					s.Store(t, r, s.Load(t, r)+s.Load(t, r+64))
				}
				t.SyncThreads()
				if r >= 32 {
					return
				}
				for off := 32; off > 0; off /= 2 {
					v := s.Load(t, r) + s.Load(t, r+off)
					if syncwarp {
						between(t)
					}
					s.Store(t, r, v)
					if syncwarp {
						between(t)
					}
				}
				if r == 0 {
					out.Store(t, 0, s.Load(t, 0))
				}
			}, func() error {
				if got := out.Host()[0]; syncwarp && got != 127*128/2 {
					return fmt.Errorf("sum = %d, want %d", got, 127*128/2)
				}
				return nil
			}
	}
	return c
}

func kinds(k ...race.Kind) []race.Kind { return k }

func TestRaceSharedNoBarrier(t *testing.T)     { t.Parallel(); sharedNeighbour(false).run(t) }
func TestNoRaceSharedBarrier(t *testing.T)     { t.Parallel(); sharedNeighbour(true).run(t) }
func TestRaceSharedLaneNoSync(t *testing.T)    { t.Parallel(); sharedLane(false).run(t) }
func TestNoRaceSharedLaneBarrier(t *testing.T) { t.Parallel(); sharedLane(true).run(t) }

func TestNoRaceReleaseAcquireDevice(t *testing.T) {
	t.Parallel()
	messagePassing(scope.Device, scope.Device, 2).run(t)
}

func TestNoRaceReleaseAcquireBlockInBlock(t *testing.T) {
	t.Parallel()
	messagePassing(scope.Block, scope.Block, 1).run(t)
}

func TestRaceReleaseTooNarrow(t *testing.T) {
	t.Parallel()
	messagePassing(scope.Block, scope.Device, 2).run(t)
}

func TestRaceAcquireTooNarrow(t *testing.T) {
	t.Parallel()
	messagePassing(scope.Device, scope.Block, 2).run(t)
}

func TestRaceBlockSyncForGrid(t *testing.T)       { t.Parallel(); blockSyncForGrid().run(t) }
func TestRaceGridBarrierLeaderFence(t *testing.T) { t.Parallel(); leaderFenceGridBarrier(false).run(t) }
func TestNoRaceGridBarrierAllFence(t *testing.T)  { t.Parallel(); leaderFenceGridBarrier(true).run(t) }
func TestRacePerLaneLocks(t *testing.T)           { t.Parallel(); warpLocks(false).run(t) }
func TestNoRaceOneLockPerWarp(t *testing.T)       { t.Parallel(); warpLocks(true).run(t) }
func TestRaceReductionTail(t *testing.T)          { t.Parallel(); reductionTail(nil).run(t) }

// TestCorpusTotals is the harness: it runs every case of the corpus and
// every ScoR microbenchmark under every executor, counts false positives
// (reports on a clean kernel, or of an unexpected kind) and false
// negatives (a racy kernel with no report), and prints the totals.
func TestCorpusTotals(t *testing.T) {
	t.Parallel()
	var runs, racy, found, fp, fn int
	tally := func(name string, expect []race.Kind, isRacy bool, rs []race.Report) {
		runs++
		fps, missed := verdict(expect, isRacy, rs)
		fp += len(fps)
		if isRacy {
			racy++
			if !missed {
				found++
			}
		}
		if missed {
			fn++
			t.Errorf("%s: false negative: no report (want %v)", name, expect)
		}
		for _, r := range fps {
			t.Errorf("%s: false positive:\n%v", name, r)
		}
	}
	// Without history the detector takes its lock-free repeat path and
	// starts granules with first records, neither of which may change a
	// verdict; nor may any configuration.
	names := append(race.Configs(), "opt:mutex", "opt:striped")
	for _, name := range names {
		opt, err := race.Config(name)
		require.NoError(t, err)
		if opt.Off {
			continue
		}
		for _, v := range []struct{ history, full bool }{{true, false}, {false, false}, {false, true}} {
			opt.History, opt.FullEntries = v.history, v.full
			for _, e := range executors() {
				for _, k := range kernels.Micros() {
					want := k.ExpectedIn("", opt.Exact())
					tally(name+"/"+k.Name+"/"+e.String(), want, len(want) > 0, runKernelWith(t, k, e, race.New(opt)))
				}
				for _, c := range corpus() {
					want := c.expectIn(opt.Exact())
					tally(name+"/"+c.name+"/"+e.String(), want, want != nil, c.reportsWith(t, e, race.New(opt)))
				}
			}
		}
	}
	t.Logf("corpus over %d configurations: %d runs (%d racy): %d races found, %d false positives, %d false negatives",
		len(names)-1, runs, racy, found, fp, fn)
	require.Zero(t, fp+fn)
	require.True(t, slices.ContainsFunc(corpus(), func(c corpusCase) bool { return c.expect == nil }))
}
