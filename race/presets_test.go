package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

func TestConfigs(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"off", "central", "plain", "coalesce", "backoff", "opt", "exact"}, race.Configs())
	for _, name := range race.Configs() {
		_, err := race.Config(name)
		require.NoError(t, err, name)
	}
	exact, _ := race.Config("exact")
	require.Equal(t, race.Options{}, exact, "exact is the default")
	precise, _ := race.Config("precise")
	require.Equal(t, exact, precise, "precise is exact's earlier name")
	for _, name := range []string{"central", "plain", "coalesce", "backoff", "opt", "opt:mutex", "plain:full"} {
		o, err := race.Config(name)
		require.NoError(t, err, name)
		require.Equal(t, race.IGUARD, o.Family, name)
		require.False(t, o.Exact(), name)
	}
	exactFull, err := race.Config("exact:full")
	require.NoError(t, err)
	require.Equal(t, race.Options{FullEntries: true}, exactFull)
	exactFlat, err := race.Config("exact:flat")
	require.NoError(t, err)
	require.Equal(t, race.Options{FlatClocks: true}, exactFlat)
	_, err = race.Config("exact:mutex")
	require.ErrorContains(t, err, "takes no suffix but full, flat and history")
	_, err = race.Config("opt:flat")
	require.ErrorContains(t, err, `"flat"`, "flat is the exact family's ablation")
	plain, _ := race.Config("plain")
	require.True(t, plain.NoBackoff && plain.NoCoalesce)
	off, _ := race.Config("off")
	require.True(t, off.Off)
	_, err = race.Config("turbo")
	require.ErrorContains(t, err, `"turbo"`)

	mutex, err := race.Config("opt:mutex")
	require.NoError(t, err)
	require.Equal(t, race.Options{Family: race.IGUARD, Lock: race.LockMutex}, mutex)
	striped, err := race.Config("plain:striped")
	require.NoError(t, err)
	require.Equal(t, race.Options{Family: race.IGUARD, Lock: race.LockStriped, NoBackoff: true, NoCoalesce: true}, striped)
	full, err := race.Config("plain:full:mutex")
	require.NoError(t, err)
	require.Equal(t, race.Options{Family: race.IGUARD, Lock: race.LockMutex, NoBackoff: true, NoCoalesce: true, FullEntries: true}, full)
	hist, err := race.Config("opt:history")
	require.NoError(t, err)
	require.Equal(t, race.Options{Family: race.IGUARD, History: true}, hist)
	hist, err = race.Config("exact:history")
	require.NoError(t, err)
	require.Equal(t, race.Options{History: true}, hist)
	_, err = race.Config("opt:full:ticket")
	require.ErrorContains(t, err, `"ticket"`)
	_, err = race.Config("opt:ticket")
	require.ErrorContains(t, err, `"ticket"`)
	_, err = race.Config("central:mutex")
	require.ErrorContains(t, err, "central")
	_, err = race.Config("turbo:mutex")
	require.ErrorContains(t, err, `"turbo"`)
}

// hammer launches blocks blocks of 64 threads under det, each thread
// adding to x[0] n times with a device atomic and then storing without
// synchronization: contention on one word, and races. Each kind of race
// has a word of its own, so that the verdict does not depend on how the
// blocks interleave: the detector checks an access against the last
// writer only, and on many cores another block's store to a shared word
// lands between nearly every two stores of one block.
//   - x[1], stored by every thread: different blocks (missing device fence);
//   - x[2+b], stored by the lanes 0 and 1 of every warp of block b: one warp
//     (missing __syncwarp) on the first pair, different warps of one block
//     (missing block fence) from the second warp on.
func hammer(t *testing.T, det *race.Detector, blocks, n int) {
	t.Helper()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 2+blocks)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "hammer", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 64}, Observer: det},
		func(t *gpu.Thread) {
			for range n {
				x.AtomicAdd(t, 0, 1, scope.Device)
			}
			x.Store(t, 1, uint32(t.GlobalID()))
			if t.Lane() < 2 {
				x.Store(t, 2+t.BlockRank(), uint32(t.ThreadRank()))
			}
		})
	require.NoError(t, err)
	require.Equal(t, uint32(blocks*64*n), x.Host()[0])
}

// TestLockings runs a contended, racy kernel under each locking
// discipline, with and without backoff, and checks the verdict and that
// the counters add up.
func TestLockings(t *testing.T) {
	t.Parallel()
	for _, lk := range []race.Locking{race.LockSpin, race.LockMutex, race.LockStriped} {
		for _, noBackoff := range []bool{false, true} {
			t.Run(lk.String(), func(t *testing.T) {
				t.Parallel()
				det := race.New(race.Options{Family: race.IGUARD, Lock: lk, NoBackoff: noBackoff})
				hammer(t, det, 8, 20)
				st := det.Stats()
				require.Equal(t, uint64(8*64*21+8*2*2), st.Accesses)
				require.Equal(t, st.Accesses, st.Checks+st.Repeats+st.Coalesced)
				require.Equal(t, st.Checks-st.Firsts, st.Locks, "every check but a first touch takes a lock")
				require.NotZero(t, st.Firsts)
				require.LessOrEqual(t, st.Contended, st.Locks)
				if lk != race.LockSpin || noBackoff {
					require.Zero(t, st.Waits)
				}
				require.Equal(t, map[race.Kind]bool{race.MissingSyncwarp: true, race.MissingBlockFence: true, race.MissingDeviceFence: true}, kindsOf(det.Reports()))
			})
		}
	}
}

// TestCentralCounts checks that the central checker sees every access and
// reports as the inline detector does.
func TestCentralCounts(t *testing.T) {
	t.Parallel()
	det := race.New(race.Options{Central: true})
	hammer(t, det, 4, 10)
	st := det.Stats()
	require.Equal(t, uint64(4*64*11+4*2*2), st.Accesses)
	require.Zero(t, st.Contended, "one goroutine checks: nothing contends")
	require.NotEmpty(t, det.Reports())
}

// TestCentralHaltOnFirst checks that the central checker's first race
// still stops the launch with a *Halt.
func TestCentralHaltOnFirst(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	det := race.New(race.Options{Central: true, HaltOnFirst: true})
	err := twoWarps(t, d, det, func(t *gpu.Thread) {
		for range 100 { // enough accesses after the race for one to raise it
			x.Store(t, 0, 1)
			x.Store(t, t.ThreadRank(), 2)
		}
	})
	var h *race.Halt
	require.ErrorAs(t, err, &h)
	require.Len(t, det.Reports(), 1)
}

// TestCentralNoLeak checks that each launch's checker goroutine ends with
// the launch, a failing one included. The check runs after the devices'
// Close (cleanups run last registered first), which ends their fibers.
func TestCentralNoLeak(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, baseline) })
	det := race.New(race.Options{Central: true, HaltOnFirst: true})
	hammer(t, race.New(race.Options{Central: true}), 2, 3)
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	err := twoWarps(t, d, det, func(t *gpu.Thread) {
		for range 100 {
			x.Store(t, 0, 1)
		}
	})
	require.Error(t, err)
}

// TestExactFullSameVerdicts: the exact family's ablation without first
// records (exact:full) reports what exact does on the corpus, and settles
// no check in a first record, where exact settles a store to a word
// touched once there.
func TestExactFullSameVerdicts(t *testing.T) {
	t.Parallel()
	for _, c := range corpus() {
		want := c.expectIn(true)
		for _, name := range []string{"exact", "exact:full"} {
			opt, err := race.Config(name)
			require.NoError(t, err)
			opt.History = true
			rs := c.reportsWith(t, gpu.Fibers, race.New(opt))
			fps, missed := verdict(want, want != nil, rs)
			require.Empty(t, fps, "%s: %s", name, c.name)
			require.False(t, missed, "%s: %s", name, c.name)
		}
	}
	firsts := map[string]uint64{}
	for _, name := range []string{"exact", "exact:full"} {
		opt, _ := race.Config(name)
		det := race.New(opt)
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1<<12)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 16}, Block: gpu.Dim3{X: 256}, Observer: det}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, t.GlobalID(), 1) }))
		firsts[name] = det.Stats().Firsts
		require.Empty(t, det.Reports())
	}
	require.Equal(t, uint64(16*256), firsts["exact"])
	require.Zero(t, firsts["exact:full"])
}

// TestExactFlatSameVerdicts: the exact family's ablation of clock
// lineages (exact:flat) reports what exact does on the corpus, and its
// joins walk more vector clock entries where a lock passes from thread
// to thread: exact answers a holder's covers checks of the lock's
// earlier releases by lineage.
func TestExactFlatSameVerdicts(t *testing.T) {
	t.Parallel()
	for _, c := range corpus() {
		want := c.expectIn(true)
		opt, err := race.Config("exact:flat")
		require.NoError(t, err)
		opt.History = true
		rs := c.reportsWith(t, gpu.Fibers, race.New(opt))
		fps, missed := verdict(want, want != nil, rs)
		require.Empty(t, fps, c.name)
		require.False(t, missed, c.name)
	}
	joins := map[string]uint64{}
	for _, name := range []string{"exact", "exact:flat"} {
		opt, _ := race.Config(name)
		det := race.New(opt)
		d := newDevice(t)
		lock, total, mine := gpu.Alloc[int32](d, "lock", 1), gpu.Alloc[int32](d, "total", 1), gpu.Alloc[int32](d, "mine", 256)
		cfg := gpu.Config{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Observer: det, Deterministic: true}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			mine.Store(t, t.GlobalID(), 1)
			t.ThreadFenceBlock() // each holder brings its block's fences, and its store, to the lock's chain
			for lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
			}
			t.ThreadFence()
			total.Store(t, 0, total.Load(t, 0)+1)
			t.ThreadFence()
			lock.AtomicExch(t, 0, 0, scope.Device)
		}))
		require.Empty(t, det.Reports(), name)
		require.Equal(t, int32(256), total.Host()[0])
		joins[name] = det.Stats().Joins
	}
	require.NotZero(t, joins["exact"])
	require.Less(t, 5*joins["exact"], 4*joins["exact:flat"], "lineages spare the walks of a lock's earlier releases")
}
