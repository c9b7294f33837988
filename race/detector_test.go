package race_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// twoWarps launches k on one 64-thread block under det.
func twoWarps(t *testing.T, d *gpu.Device, det *race.Detector, k gpu.Kernel) error {
	t.Helper()
	return d.Launch(context.Background(), gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Observer: det}, k)
}

func TestHaltOnFirst(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	det := race.New(race.Options{Family: race.IGUARD, HaltOnFirst: true})
	err := twoWarps(t, d, det, func(t *gpu.Thread) {
		x.Store(t, 0, 1) // every thread: a race at the second one
		x.Store(t, t.ThreadRank(), 2)
	})
	var h *race.Halt
	require.ErrorAs(t, err, &h)
	require.Equal(t, race.MissingSyncwarp, h.Report.Kind)
	require.Len(t, det.Reports(), 1)
	det.Reset()
	require.Empty(t, det.Reports())
}

// TestWithoutHalt: the halt a detector stops a launch with is dropped
// from its error, alone or among the launch's other errors, which stay.
func TestWithoutHalt(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	det := race.New(race.Options{HaltOnFirst: true})
	err := twoWarps(t, d, det, func(t *gpu.Thread) { x.Store(t, 0, 1) })
	var h *race.Halt
	require.ErrorAs(t, err, &h)
	require.NoError(t, race.WithoutHalt(err), "the halt was the launch's only error: %v", err)
	other := errors.New("an index out of range")
	rest := race.WithoutHalt(errors.Join(err, other))
	require.ErrorIs(t, rest, other)
	require.False(t, errors.As(rest, &h), "no halt left: %v", rest)
	require.Equal(t, other, race.WithoutHalt(other))
	require.NoError(t, race.WithoutHalt(nil))
}

func TestDedupeAndMaxReports(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	det := race.New(race.Options{Family: race.IGUARD, History: true, MaxReports: 1})
	racy := func(t *gpu.Thread) {
		x.Store(t, 0, 1)
		x.Store(t, 1, 1)
	}
	require.NoError(t, twoWarps(t, d, det, racy))
	// 64 threads race on x[0] and on x[1], at two lines, within a warp
	// (missing-syncwarp) and across warps (missing-block-fence): four
	// distinct (kind, site, site) races, one kept.
	require.Len(t, det.Reports(), 1)
	require.Equal(t, 3, det.Dropped())
	st := det.Stats()
	require.Equal(t, 1, st.Reports)
	require.Equal(t, 3, st.Dropped)
	require.Equal(t, uint64(128), st.Accesses, "64 threads, two stores each")
	require.NoError(t, twoWarps(t, d, det, racy))
	require.Equal(t, 3, det.Dropped(), "the same races in a second launch are deduplicated")
	det.Reset()
	require.Zero(t, det.Dropped())
}

// TestRepeatedCountsGranulesNotListed: two granules racing through the
// same two lines are one report, as under go test -race, and the Exact
// family counts the second in Stats.Repeated, once: a granule is checked
// no more after its race.
func TestRepeatedCountsGranulesNotListed(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 4)
	det := race.New(race.Options{})
	cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Observer: det}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		for i := range 3 {
			if t.BlockRank() == 0 {
				x.Store(t, i, 1)
			} else {
				x.Load(t, i)
			}
		}
	}))
	require.Len(t, det.Reports(), 1, "one pair of lines")
	st := det.Stats()
	require.Equal(t, 2, st.Repeated, "x[1] and x[2] raced through the same lines as x[0]")
	require.Zero(t, st.Dropped)
	det.Reset()
	require.Zero(t, det.Stats().Repeated)
}

func TestReportsAccumulateAcrossLaunches(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	det := race.New(race.Options{Family: race.IGUARD, History: true})
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) { x.Store(t, 0, 1) }))
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) { x.Load(t, 0) }))
	require.Len(t, det.Reports(), 2, "a launch boundary orders everything: loads after the racy launch are clean")
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Block) }))
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) { x.Store(t, t.ThreadRank(), 1) }))
	require.Len(t, det.Reports(), 2)
}

func TestMetadataIsLazyAndFreed(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	big := gpu.Alloc[float64](d, "big", 1<<20)
	det := race.New(race.Options{Family: race.IGUARD})
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 64}, Block: gpu.Dim3{X: 32}, Observer: det},
		func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 4096)
			s.Store(t, t.ThreadRank()%2, 1)
			if t.GlobalID() == 0 {
				big.Store(t, 1<<19, 1)
			}
		}))
	st := det.Stats()
	require.Zero(t, st.MetadataBytes, "freed at the launch's end")
	require.Positive(t, st.PeakMetadata)
	// 1M elements untouched but one, and 64 blocks' shared arrays touched
	// at their start: a page each at most, 65 pages, where tracking all of
	// big would take its 2M granules times about 200 bytes, and all of the
	// shared arrays 64 times 4096 granules.
	require.Less(t, st.PeakMetadata, int64(8<<20))
}

func TestGranularity(t *testing.T) {
	t.Parallel()
	neighbours := func(t *gpu.Thread, x gpu.Buffer[int32]) {
		if r := t.ThreadRank(); r == 0 || r == 32 {
			x.Store(t, r/32, 1) // x[0] and x[1]: different words
		}
	}
	for _, c := range []struct {
		gran  int
		races int
	}{{4, 0}, {8, 0}, {3, 0}} { // 8: granules never span typed elements narrower (see TestDynamicSharedGranularity)
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 2)
		det := race.New(race.Options{Family: race.IGUARD, Granularity: c.gran})
		require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) { neighbours(t, x) }))
		require.Len(t, det.Reports(), c.races, "granularity %d", c.gran)
	}
}

func TestReportFields(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[uint64](d, "x", 4)
	y := gpu.Alloc[uint32](d, "y", 1)
	det := race.New(race.Options{Family: race.IGUARD, History: true})
	// Block 3 waits, on a device-scope flag, for block 0's block-scope
	// add before making its own, so the report's sides come in that order.
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Name: "fields", Grid: gpu.Dim3{X: 2, Y: 2}, Block: gpu.Dim3{X: 2, Y: 2}, Observer: det, Cooperative: true},
		func(t *gpu.Thread) {
			if t.BlockRank() == 0 && t.ThreadRank() == 3 {
				x.AtomicAdd(t, 2, 1, scope.Block)
				y.AtomicExch(t, 0, 1, scope.Device)
			}
			if t.BlockRank() == 3 && t.ThreadRank() == 1 {
				for y.AtomicLoad(t, 0, scope.Device) == 0 {
				}
				x.AtomicAdd(t, 2, 0, scope.Block)
			}
		}))
	rs := det.Reports()
	require.NotEmpty(t, rs)
	r := rs[0]
	require.Equal(t, race.ScopedAtomic, r.Kind)
	require.Equal(t, "fields", r.Launch)
	require.Equal(t, "x", r.Mem.Name)
	require.Equal(t, 2, r.Index)
	require.Equal(t, gpu.Dim3{X: 1, Y: 1}, r.Current.Block)
	require.Equal(t, gpu.Dim3{X: 1, Y: 0}, r.Current.Thread)
	require.Equal(t, 13, r.Current.GlobalID)
	require.Equal(t, gpu.Dim3{X: 1, Y: 1}, r.Previous.Thread)
	require.Equal(t, gpu.OpAdd, r.Previous.Op)
	require.Equal(t, scope.Block, r.Previous.Scope)
	s := r.String()
	for _, want := range []string{"WARNING: SCOPED RACE (scoped-atomic)", `global "x"[2]`,
		"by thread (1,0,0) of block (1,1,0)", "Previous atomic update by thread (1,1,0) of block (0,0,0)",
		"block-scope atomicAdd at race/detector_test.go:", "has block scope, which does not include thread (1,0,0) of block (1,1,0)"} {
		require.Contains(t, s, want)
	}
	require.True(t, strings.HasPrefix(s, "==================\n") && strings.HasSuffix(s, "\n=================="))
}

func TestDetectorIsAllocationFreeOnRepeats(t *testing.T) {
	for _, opt := range []race.Options{{}, {History: true}} {
		allocationFreeOnRepeats(t, opt)
	}
}

// allocationFreeOnRepeats requires that a detector with options opt
// allocates nothing per check: with history, sites and stacks are cached
// per call path.
func allocationFreeOnRepeats(t *testing.T, opt race.Options) {
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	det := race.New(opt)
	launch := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det},
				func(t *gpu.Thread) {
					for i := range n {
						x.Store(t, 0, x.Load(t, 0)+int32(i))
						t.ThreadFenceBlock()
					}
				})
			if err != nil {
				panic(err)
			}
		})
	}
	// The launch allocates a few objects, fewer when the detector's pools
	// hand it state (and -race makes pools drop some at random); a
	// thousand checks more must add none.
	require.InDelta(t, launch(1), launch(1000), 3, "checks allocate nothing; only the launch does (%+v)", opt)
}

func TestHaltIsAnError(t *testing.T) {
	t.Parallel()
	h := &race.Halt{Report: race.Report{Kind: race.MissingDeviceFence, Mem: &gpu.Memory{Name: "m"}}}
	var err error = h
	require.True(t, errors.As(err, &h))
	require.Contains(t, err.Error(), "missing-device-fence")
}

func TestConcurrentLaunchesShareADetector(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	det := race.New(race.Options{Family: race.IGUARD, History: true})
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			x := gpu.Alloc[int32](d, "x", 256)
			errs <- d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Observer: det,
				Executor: gpu.Executor(i % 2)}, func(t *gpu.Thread) {
				x.Store(t, t.GlobalID(), 1)
				t.SyncThreads()
				x.Store(t, t.BlockRank()*64+(t.ThreadRank()+1)%64, 2)
			})
		}()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	require.Empty(t, det.Reports(), "each launch has its own metadata")
	require.Zero(t, det.MetadataBytes())
}

// tee observes a launch with two observers, as a program running two
// detectors at once (or a detector beside a tracer) does.
type tee [2]gpu.Observer

func (o tee) LaunchStart(g *gpu.Grid) { o[0].LaunchStart(g); o[1].LaunchStart(g) }
func (o tee) LaunchEnd(g *gpu.Grid, err error) {
	o[0].LaunchEnd(g, err)
	o[1].LaunchEnd(g, err)
}
func (o tee) BlockStart(g *gpu.Grid, b int)       { o[0].BlockStart(g, b); o[1].BlockStart(g, b) }
func (o tee) BlockEnd(g *gpu.Grid, b int)         { o[0].BlockEnd(g, b); o[1].BlockEnd(g, b) }
func (o tee) Access(t *gpu.Thread, a *gpu.Access) { o[0].Access(t, a); o[1].Access(t, a) }
func (o tee) Fence(t *gpu.Thread, s scope.Scope, f gpu.Order) {
	o[0].Fence(t, s, f)
	o[1].Fence(t, s, f)
}
func (o tee) Sync(t *gpu.Thread, s gpu.Sync) { o[0].Sync(t, s); o[1].Sync(t, s) }

// TestTwoDetectorsOneLaunch: two detectors observing one launch each keep
// their own launch and thread states, though the grid and the threads
// have one slot for an observer's state, and report the same races.
func TestTwoDetectorsOneLaunch(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 64)
	a, b := race.New(race.Options{Family: race.IGUARD}), race.New(race.Options{Family: race.IGUARD, FullEntries: true})
	err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "tee", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Observer: tee{a, b}},
		func(t *gpu.Thread) {
			x.Store(t, t.ThreadRank(), 1)
			x.Load(t, (t.ThreadRank()+1)%32) // a lane's neighbour's store, unsynchronized (and both blocks write x)
		})
	require.NoError(t, err)
	require.NotEmpty(t, a.Reports())
	kinds := func(det *race.Detector) map[race.Kind]bool {
		ks := map[race.Kind]bool{}
		for _, r := range det.Reports() {
			ks[r.Kind] = true
		}
		return ks
	}
	require.Equal(t, kinds(a), kinds(b))
	require.Equal(t, a.Stats().Accesses, b.Stats().Accesses)
	require.EqualValues(t, 128, a.Stats().Accesses)
}

// TestDeterministicKinds checks the advice of the package doc: where
// three kinds of race meet on one word, a Deterministic launch reports
// the same races, kinds and sites included, on every run, whatever
// GOMAXPROCS is (each block's stores and its neighbours' land in one
// order).
func TestDeterministicKinds(t *testing.T) {
	t.Parallel()
	var first []string
	for range 5 {
		d := newDevice(t)
		x := gpu.Alloc[uint32](d, "x", 1)
		det := race.New(race.Options{Family: race.IGUARD})
		err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "shared-word", Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Observer: det, Deterministic: true},
			func(t *gpu.Thread) { x.Store(t, 0, uint32(t.GlobalID())) })
		require.NoError(t, err)
		var got []string
		for _, r := range det.Reports() {
			got = append(got, r.String())
		}
		if first == nil {
			first = got
			require.Len(t, kindsOf(det.Reports()), 3, "missing __syncwarp, block fence and device fence: %v", got)
			continue
		}
		require.Equal(t, first, got)
	}
}

// TestTreeReductionUnderSchedules: a shared-memory tree reduction whose
// steps a __syncthreads separates is clean under every schedule tried, and
// computes the block's sum.
func TestTreeReductionUnderSchedules(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	sums := gpu.Alloc[int32](d, "sums", 2)
	cfg := gpu.LaunchConfig{Name: "tree", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}}
	require.Zero(t, racetest.Explore(t, 16, d, cfg, func(t *gpu.Thread) {
		s := gpu.Shared[int32](t, "s", 64)
		s.Store(t, t.ThreadRank(), int32(t.ThreadRank()))
		for half := 32; half > 0; half /= 2 {
			t.SyncThreads()
			if t.ThreadRank() < half {
				s.Store(t, t.ThreadRank(), s.Load(t, t.ThreadRank())+s.Load(t, t.ThreadRank()+half))
			}
		}
		if t.ThreadRank() == 0 {
			sums.Store(t, t.BlockRank(), s.Load(t, 0))
		}
	}))
	require.Equal(t, []int32{63 * 32, 63 * 32}, sums.Host())
}

// kindsOf returns the set of rs's kinds.
func kindsOf(rs []race.Report) map[race.Kind]bool {
	kinds := map[race.Kind]bool{}
	for _, r := range rs {
		kinds[r.Kind] = true
	}
	return kinds
}

// TestNilDetectorIsAnError: a *Detector left nil ("checking off") and set
// as a launch's Observer is an error naming its type, not a crash.
func TestNilDetectorIsAnError(t *testing.T) {
	t.Parallel()
	var det *race.Detector
	d := newDevice(t)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: det}, func(*gpu.Thread) {})
	require.ErrorContains(t, err, "LaunchConfig.Observer is a nil *race.Detector")
}
