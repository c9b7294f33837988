package race_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// launchOwn runs one block of 64 threads under det, each applying f to
// the 16 words of x it owns, and returns det's counters.
func launchOwn(t *testing.T, det *race.Detector, f func(t *gpu.Thread, x gpu.Buffer[uint32], i int)) race.Stats {
	t.Helper()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 64*16)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "own", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Observer: det},
		func(t *gpu.Thread) {
			for i := range 16 {
				f(t, x, t.ThreadRank()*16+i)
			}
		})
	require.NoError(t, err)
	return det.Stats()
}

// TestFirstTouches: words each touched by one thread are settled by first
// records, with no lock and eight bytes of metadata per granule; with
// Options.FullEntries each takes a locked check and a 64-byte entry.
func TestFirstTouches(t *testing.T) {
	t.Parallel()
	store := func(t *gpu.Thread, x gpu.Buffer[uint32], i int) { x.Store(t, i, 1) }
	st := launchOwn(t, race.New(race.Options{Family: race.IGUARD}), store)
	require.EqualValues(t, 1024, st.Checks)
	require.EqualValues(t, 1024, st.Firsts)
	require.Zero(t, st.Locks)
	require.EqualValues(t, 1024*8, st.PeakMetadata)

	st = launchOwn(t, race.New(race.Options{Family: race.IGUARD, FullEntries: true}), store)
	require.EqualValues(t, 1024, st.Checks)
	require.Zero(t, st.Firsts)
	require.EqualValues(t, 1024, st.Locks)
	require.EqualValues(t, 1024*64, st.PeakMetadata)

	// A fence before each store puts each in a new state, which the
	// first in the slot holds whole: still eight bytes per granule, and
	// nothing kept by the thread.
	det := race.New(race.Options{Family: race.IGUARD})
	fenced := func(t *gpu.Thread, x gpu.Buffer[uint32], i int) {
		t.Fence(scope.Block)
		x.Store(t, i, 1)
	}
	st = launchOwn(t, det, fenced)
	require.EqualValues(t, 1024, st.Firsts)
	require.EqualValues(t, 1024*8, st.PeakMetadata)
	require.Zero(t, st.MetadataBytes, "after the launch")
}

// TestFirstTouchesWithHistory: history keeps first records too, each
// naming its access's call path in the same word: eight bytes per granule
// touched once, and no lock, as without history.
func TestFirstTouchesWithHistory(t *testing.T) {
	t.Parallel()
	store := func(t *gpu.Thread, x gpu.Buffer[uint32], i int) { x.Store(t, i, 1) }
	st := launchOwn(t, race.New(race.Options{Family: race.IGUARD, History: true}), store)
	require.EqualValues(t, 1024, st.Checks)
	require.EqualValues(t, 1024, st.Firsts)
	require.Zero(t, st.Locks)
	require.EqualValues(t, 1024*8, st.PeakMetadata)
}

// storeTwice stores to x[0] at two lines, the second superseding the
// first's record, and returns the second's line.
//
//go:noinline
func storeTwice(t *gpu.Thread, x gpu.Buffer[uint32]) int {
	x.Store(t, 0, 1)
	_, _, line, _ := runtime.Caller(0)
	x.Store(t, 0, 2) // the line after Caller's
	return line + 1
}

// TestFirstRecordSites: a race whose previous side is a first record
// names that side's line and call stack as an entry's would: the line of
// the store that superseded the granule's first store, and the kernel
// frames that led to it.
func TestFirstRecordSites(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x, flag := gpu.Alloc[uint32](d, "x", 1), gpu.Alloc[uint32](d, "flag", 1)
	det := race.New(race.Options{Family: race.IGUARD, History: true})
	var line int
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "sites", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Observer: det, Cooperative: true},
		func(t *gpu.Thread) {
			if t.BlockRank() == 0 {
				line = storeTwice(t, x)
				flag.AtomicExch(t, 0, 1, scope.Device) // no fence: x's stores are not published
				return
			}
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
			x.Load(t, 0)
		}))
	require.Positive(t, det.Stats().Firsts)
	rs := det.Reports()
	require.Len(t, rs, 1)
	prev := rs[0].Previous
	require.Equal(t, race.MissingDeviceFence, rs[0].Kind)
	require.Equal(t, gpu.OpStore, prev.Op)
	require.Equal(t, line, prev.Site.Line(), "the superseding store's line")
	require.Contains(t, prev.Site.Function(), "storeTwice")
	require.GreaterOrEqual(t, len(prev.Stack), 2, "the helper's line and the kernel's call of it")
	require.Equal(t, prev.Site, prev.Stack[0])
	require.Contains(t, prev.Stack[1].Function(), "TestFirstRecordSites")
	require.Contains(t, rs[0].Current.Site.Function(), "TestFirstRecordSites")
}

// TestFirstSuperseded: x[i] = x[i]+1 by one thread keeps one first record:
// the store replaces the load's, which a check would have ordered by
// program order. An atomic is a first record too, and a store after it
// by its thread supersedes it.
func TestFirstSuperseded(t *testing.T) {
	t.Parallel()
	st := launchOwn(t, race.New(race.Options{Family: race.IGUARD}), func(t *gpu.Thread, x gpu.Buffer[uint32], i int) {
		x.Store(t, i, x.Load(t, i)+1)
	})
	require.EqualValues(t, 2048, st.Firsts)
	require.Zero(t, st.Locks)

	st = launchOwn(t, race.New(race.Options{Family: race.IGUARD}), func(t *gpu.Thread, x gpu.Buffer[uint32], i int) {
		x.AtomicAdd(t, i, 1, scope.Device)
	})
	require.EqualValues(t, 1024, st.Firsts)
	require.Zero(t, st.Locks)

	st = launchOwn(t, race.New(race.Options{Family: race.IGUARD}), func(t *gpu.Thread, x gpu.Buffer[uint32], i int) {
		x.AtomicAdd(t, i, 1, scope.Device)
		x.Store(t, i, 7)
	})
	require.EqualValues(t, 2048, st.Firsts)
	require.Zero(t, st.Locks)
}

// TestFirstRecordsVerdicts: first records never move a verdict. Each
// thread writes its words (a load and a store, or an atomicAdd), then
// reads its neighbour's, once after a __syncthreads (no race) and once
// without (a race), first touches, superseding stores and expansions
// racing under both executors; the detector with first records reports
// exactly the kinds the one with full entries does.
func TestFirstRecordsVerdicts(t *testing.T) {
	t.Parallel()
	for _, c := range firstVerdictCases() {
		for range 5 {
			full := neighbourKinds(t, race.Options{Family: race.IGUARD, FullEntries: true}, c)
			require.Equal(t, full, neighbourKinds(t, race.Options{Family: race.IGUARD}, c), "%+v", c)
			require.Equal(t, c.barrier, len(full) == 0, "%+v: %v", c, full)
		}
	}
}

// A firstVerdictCase is an executor, whether a barrier separates the
// writes from the reads, and whether the writes are atomics.
type firstVerdictCase struct {
	e               gpu.Executor
	barrier, atomic bool
}

// firstVerdictCases returns every combination TestFirstRecordsVerdicts runs.
func firstVerdictCases() []firstVerdictCase {
	var cs []firstVerdictCase
	for _, e := range executors() {
		for _, barrier := range []bool{true, false} {
			for _, atomic := range []bool{false, true} {
				cs = append(cs, firstVerdictCase{e, barrier, atomic})
			}
		}
	}
	return cs
}

// neighbourKinds runs case c's kernel under a detector of opt and returns
// the kinds it reports.
func neighbourKinds(t *testing.T, opt race.Options, c firstVerdictCase) map[race.Kind]bool {
	det := race.New(opt)
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 4*64*4)
	cfg := gpu.LaunchConfig{Name: "neighbours", Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Executor: c.e, Observer: det}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		g := t.GlobalID()
		for i := range 4 {
			if c.atomic {
				x.AtomicAdd(t, g*4+i, 1, scope.Device)
			} else {
				x.Store(t, g*4+i, x.Load(t, g*4+i)+1)
			}
		}
		if c.barrier {
			t.SyncThreads()
		}
		n := t.BlockRank()*64 + (t.ThreadRank()+1)%64 // a neighbour in the block
		for i := range 4 {
			x.Load(t, n*4+i)
		}
	})
	require.NoError(t, err)
	ks := map[race.Kind]bool{}
	for _, r := range det.Reports() {
		ks[r.Kind] = true
	}
	return ks
}

// TestDenseMemoryLearned: a memory whose granules all needed entries in
// one launch gets full entries in the next launches of the same detector
// (no first records), while a memory touched once per granule keeps first
// records; and a racy launch on the learned memory reports what a
// detector with full entries throughout reports.
func TestDenseMemoryLearned(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	read, own := gpu.Alloc[uint32](d, "read", 64), gpu.Alloc[uint32](d, "own", 64)
	launch := func(det *race.Detector, barrier bool) uint64 {
		before := det.Stats().Firsts
		err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "dense", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Observer: det},
			func(t *gpu.Thread) {
				own.Store(t, t.ThreadRank(), 1)
				read.Store(t, t.ThreadRank(), 1)
				if barrier {
					t.SyncThreads()
				}
				read.Load(t, (t.ThreadRank()+1)%64) // every granule of read expands
			})
		require.NoError(t, err)
		return det.Stats().Firsts - before
	}
	det, full := race.New(race.Options{Family: race.IGUARD}), race.New(race.Options{Family: race.IGUARD, FullEntries: true})
	var firsts []uint64
	for range 3 {
		firsts = append(firsts, launch(det, true))
		launch(full, true)
	}
	require.Equal(t, []uint64{128, 64, 64}, firsts, "first launch: both memories; then own only")
	require.Empty(t, det.Reports())
	require.EqualValues(t, 64, launch(det, false), "racy, with read learned dense")
	launch(full, false)
	kinds := func(det *race.Detector) map[race.Kind]bool {
		ks := map[race.Kind]bool{}
		for _, r := range det.Reports() {
			ks[r.Kind] = true
		}
		return ks
	}
	require.NotEmpty(t, det.Reports())
	require.Equal(t, kinds(full), kinds(det))
}
