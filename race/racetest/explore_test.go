package racetest_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// handoff races only under some schedules: thread 0 writes data and sets
// a flag, with no fence between; thread 32, of another warp, reads data
// only if it sees the flag, which it does only if thread 0 ran first.
// Both live in shared memory, so every launch starts from zeros.
func handoff(t *gpu.Thread) {
	data, flag := gpu.Shared[int32](t, "data", 1), gpu.Shared[int32](t, "flag", 1)
	switch t.ThreadRank() {
	case 0:
		data.Store(t, 0, 1)
		flag.AtomicExch(t, 0, 1, scope.Block) // no fence before it
	case 32:
		if flag.AtomicAdd(t, 0, 0, scope.Block) == 1 {
			_ = data.Load(t, 0)
		}
	}
}

// TestExploreNamesTheSeedAndItReplays: a race some schedules show fails
// the test naming a seed, which Launch under that Seed shows again.
func TestExploreNamesTheSeedAndItReplays(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	cfg := gpu.LaunchConfig{Name: "handoff", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}}
	rec := record(t)
	seed := racetest.Explore(rec, 32, d, cfg, handoff)
	require.NotZero(t, seed, "some schedule starts thread 0 before thread 32")
	require.GreaterOrEqual(t, len(rec.errs), 2)
	require.Contains(t, rec.errs[0], fmt.Sprintf("fails under schedule seed %d (racetest.Seed(%d) replays it)", seed, seed))
	require.Contains(t, strings.Join(rec.errs, "\n"), "(missing-block-fence)")

	for range 2 {
		again := record(t)
		racetest.Launch(again, d, cfg, handoff, racetest.Seed(seed))
		require.Len(t, again.errs, 1, "seed %d replays the race", seed)
	}
	clean := uint64(0) // a seed under which thread 32 runs first
	for s := uint64(1); s <= 32 && clean == 0; s++ {
		r := record(t)
		if racetest.Launch(r, d, cfg, handoff, racetest.Seed(s)); len(r.errs) == 0 {
			clean = s
		}
	}
	require.NotZero(t, clean, "the race depends on the schedule")
	require.Zero(t, racetest.Explore(t, 1, d, cfg, handoff, racetest.Seed(clean)))
}

// lastBlock is the CUDA Programming Guide's last-block pattern over
// blocks blocks of one thread: each stores its partial, fences, and takes
// a ticket; the last sums the partials. Without the fence after the
// ticket (acquire false) the sum races with a partial whose block fenced
// after the last block's fence: the fence.sc order then orders nothing
// for it, which only a launch that runs another block between a fence
// and its ticket shows.
func lastBlock(partial gpu.Buffer[int32], count gpu.Buffer[uint32], blocks int, acquire bool) gpu.Kernel {
	return func(t *gpu.Thread) {
		partial.Store(t, t.BlockRank(), 1)
		t.ThreadFence()
		if count.AtomicInc(t, 0, uint32(blocks-1), scope.Device) != uint32(blocks-1) {
			return
		}
		if acquire {
			t.ThreadFence()
		}
		for i := range blocks {
			partial.Load(t, i)
		}
	}
}

// TestExploreFindsFenceOrderRaces: a kernel that never waits still runs
// its blocks interleaved under Explore, which yields a thread after a
// fence under some seeds, so the last-block pattern without the fence
// after its ticket fails at a seed that replays it, and with the fence
// passes every seed.
func TestExploreFindsFenceOrderRaces(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	const blocks = 8
	partial, count := gpu.Alloc[int32](d, "partial", blocks), gpu.Alloc[uint32](d, "count", 1)
	cfg := gpu.LaunchConfig{Name: "last-block", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 1}}
	reset := racetest.Setup(func() { count.Fill(0) })
	rec := record(t)
	seed := racetest.Explore(rec, 50, d, cfg, lastBlock(partial, count, blocks, false), reset)
	require.NotZero(t, seed, "no seed ran a block between another's fence and its ticket")
	require.Contains(t, strings.Join(rec.errs, "\n"), "(missing-device-fence)")
	count.Fill(0)
	again := record(t)
	racetest.Launch(again, d, cfg, lastBlock(partial, count, blocks, false), racetest.Seed(seed))
	require.NotEmpty(t, again.errs, "seed %d replays the race", seed)
	require.Zero(t, racetest.Explore(t, 50, d, cfg, lastBlock(partial, count, blocks, true), reset))
}

// TestExplorePassesCleanKernels: a kernel with no race passes every seed,
// and each seed runs it once.
func TestExplorePassesCleanKernels(t *testing.T) {
	t.Parallel()
	d, n, count := counter(t)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}}
	require.Zero(t, racetest.Explore(t, 8, d, cfg, count, racetest.Seed(100)))
	require.Equal(t, []int32{8 * 4 * 32}, n.Host())
}

// counter returns a new device, a word on it and a kernel whose every
// thread adds one to the word.
func counter(t *testing.T) (*gpu.Device, gpu.Buffer[int32], gpu.Kernel) {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	n := gpu.Alloc[int32](d, "n", 1)
	return d, n, func(t *gpu.Thread) { n.AtomicAdd(t, 0, 1, scope.Device) }
}

// TestExploreNeverTriesSeedZero: with Seed(0), a failure still names a
// nonzero seed, so that 0 keeps meaning that every schedule passed.
func TestExploreNeverTriesSeedZero(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	cfg := gpu.LaunchConfig{Name: "store", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	rec := record(t)
	seed := racetest.Explore(rec, 1, d, cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) }, racetest.Seed(0))
	require.Equal(t, uint64(1), seed)
	require.Contains(t, rec.errs[0], "seed 1")
}

// messagePassing is a correct release/acquire handoff in global memory:
// block 0 writes data and releases the flag, block 1 acquires the flag and
// reads data. It relies on the flag starting at 0.
func messagePassing(data, flag gpu.Buffer[int32], got gpu.Buffer[int32]) gpu.Kernel {
	return func(t *gpu.Thread) {
		if t.BlockRank() == 0 {
			data.Store(t, 0, 42)
			flag.StoreRelease(t, 0, 1, scope.Device)
			return
		}
		for flag.LoadAcquire(t, 0, scope.Device) == 0 {
		}
		got.Store(t, 0, data.Load(t, 0))
	}
}

// TestExploreSetupResetsEachSeed: a correct message passing passes every
// seed when Setup clears its flag first; without it the second seed finds
// the flag the first one set, and a schedule that runs the reader
// first reads data before this launch's writer publishes it: a race.
func TestExploreSetupResetsEachSeed(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	data, flag, got := gpu.Alloc[int32](d, "data", 1), gpu.Alloc[int32](d, "flag", 1), gpu.Alloc[int32](d, "got", 1)
	cfg := gpu.LaunchConfig{Name: "mp", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	setups := 0
	reset := racetest.Setup(func() {
		setups++
		data.Fill(0)
		flag.Fill(0)
	})
	rec := record(t)
	require.Zero(t, racetest.Explore(rec, 8, d, cfg, messagePassing(data, flag, got), reset), "%v", rec.errs)
	require.Empty(t, rec.errs)
	require.Equal(t, 8, setups, "once per seed")
	require.Equal(t, []int32{42}, got.Host())

	flag.Fill(0)
	rec = record(t)
	failed := racetest.Explore(rec, 8, d, cfg, messagePassing(data, flag, got))
	require.Greater(t, failed, uint64(1), "without Setup a later seed finds the flag set")
	require.Contains(t, strings.Join(rec.errs, "\n"), fmt.Sprintf("seed %d", failed))
}

// TestExploreOnADeviceObservesOnce: on a Device, Explore checks with the
// device's detector alone: a race is reported once, by Explore, and not
// again when the test ends; a clean kernel passes.
func TestExploreOnADeviceObservesOnce(t *testing.T) {
	t.Parallel()
	rec := record(t)
	var seed, clean uint64
	rec.run(func() {
		d := racetest.Device(rec)
		x := gpu.Alloc[int32](d, "x", 1)
		cfg := gpu.LaunchConfig{Name: "store", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
		clean = racetest.Explore(rec, 4, d, cfg, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) })
		seed = racetest.Explore(rec, 4, d, cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) })
	})
	require.Zero(t, clean)
	require.Equal(t, uint64(1), seed)
	all := strings.Join(rec.errs, "\n")
	require.Equal(t, 1, strings.Count(all, "WARNING: SCOPED RACE"), "reported once:\n%s", all)
	require.Contains(t, rec.errs[0], "seed 1")
}

// TestExploreRejectsNoSchedules: n below 1 fails the test at once, naming
// n, and launches nothing: a test that explored nothing would pass.
func TestExploreRejectsNoSchedules(t *testing.T) {
	t.Parallel()
	d, x, count := counter(t)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	for _, n := range []int{0, -1, -2} {
		rec := record(t)
		rec.run(func() { racetest.Explore(rec, n, d, cfg, count) })
		require.Equal(t, []string{fmt.Sprintf("racetest: Explore: %d schedules: want at least 1", n)}, rec.errs)
	}
	require.Equal(t, []int32{0}, x.Host(), "nothing launched")
}

// TestExploreSeedsWrapPastZero: seeds counted from near the largest
// uint64 go on from 1, skipping 0, and each of the n runs: a kernel that
// fails under every schedule fails at the first, and one that passes runs
// n times.
func TestExploreSeedsWrapPastZero(t *testing.T) {
	t.Parallel()
	d, n, count := counter(t)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}}
	start := racetest.Seed(math.MaxUint64 - 1)
	require.Zero(t, racetest.Explore(t, 5, d, cfg, count, start))
	require.Equal(t, []int32{5 * 32}, n.Host(), "five schedules ran")
	rec := record(t)
	seed := racetest.Explore(rec, 5, d, cfg, func(t *gpu.Thread) { panic("always") }, start)
	require.Equal(t, uint64(math.MaxUint64-1), seed)
	require.NotEmpty(t, rec.errs)
}
