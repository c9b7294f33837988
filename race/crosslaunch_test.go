package race_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// overlapping runs two launches of one block of one thread at once on d:
// each announces itself on a device-scope counter and waits for the
// other, so that both run when body runs, then body.
func overlapping(t *testing.T, d *gpu.Device, observer gpu.Observer, body func(t *gpu.Thread)) {
	t.Helper()
	overlappingNamed(t, d, observer, [2]string{"launch0", "launch1"}, body)
}

// overlappingNamed is overlapping for launches of the two names.
func overlappingNamed(t *testing.T, d *gpu.Device, observer gpu.Observer, names [2]string, body func(t *gpu.Thread)) {
	t.Helper()
	started := gpu.Alloc[int32](d, "started", 1)
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			cfg := gpu.LaunchConfig{Name: names[i], Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: observer}
			errs <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
				started.AtomicAdd(t, 0, 1, scope.Device)
				for started.AtomicLoad(t, 0, scope.Device) < 2 {
				}
				body(t)
			})
		}()
	}
	for range 2 {
		require.NoError(t, <-errs)
	}
}

// increment is a lost-update counter: a load and a store, no atomic.
func increment(x gpu.Buffer[int32]) func(t *gpu.Thread) {
	return func(t *gpu.Thread) {
		for range 10 {
			x.Store(t, 0, x.Load(t, 0)+1)
		}
	}
}

// TestConcurrentLaunchesRace: two launches running at once that update
// one word with no atomic race, whether the detector is the device's or
// each launch's own observer.
func TestConcurrentLaunchesRace(t *testing.T) {
	t.Parallel()
	for _, deviceWide := range []bool{true, false} {
		det := race.New(race.Options{Family: race.IGUARD, History: true})
		cfg := gpu.DeviceConfig{}
		var obs gpu.Observer = det
		if deviceWide {
			cfg.Observer, obs = det, nil
		}
		d, err := gpu.NewDevice(cfg)
		require.NoError(t, err)
		x := gpu.Alloc[int32](d, "x", 1)
		overlapping(t, d, obs, increment(x))
		rs := det.Reports()
		require.NotEmpty(t, rs, "device-wide %v", deviceWide)
		r := rs[0]
		require.Equal(t, race.MissingDeviceFence, r.Kind)
		require.Equal(t, "x", r.Mem.Name)
		require.NotEmpty(t, r.Previous.Launch)
		require.NotEqual(t, r.Launch, r.Previous.Launch)
		require.Contains(t, r.String(), fmt.Sprintf("of launch %q", r.Previous.Launch))
		require.NotEmpty(t, r.Previous.Stack, "with history, a side of another launch has its stack")
		require.Equal(t, r.Previous.Site, r.Previous.Stack[0])
		require.Zero(t, det.MetadataBytes())
	}
}

// TestConcurrentLaunchesNameBothSides: a race between two launches names
// the launch of each side, under either family, and the Exact family
// tells two launches of one name apart by the order they started in.
func TestConcurrentLaunchesNameBothSides(t *testing.T) {
	t.Parallel()
	for _, fam := range []race.Family{race.Exact, race.IGUARD} {
		det := race.New(race.Options{Family: fam})
		d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: det})
		require.NoError(t, err)
		x := gpu.Alloc[int32](d, "x", 1)
		overlappingNamed(t, d, nil, [2]string{"left", "right"}, increment(x))
		r := det.Reports()[0]
		require.ElementsMatch(t, []string{"left", "right"}, []string{r.Current.Launch, r.Previous.Launch}, "%v", fam)
		require.Equal(t, r.Launch, r.Current.Launch)
		require.Contains(t, r.String(), fmt.Sprintf("of launch %q", r.Current.Launch))
	}
	det := race.New(race.Options{})
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: det})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	overlappingNamed(t, d, nil, [2]string{"step", "step"}, increment(x))
	r := det.Reports()[0]
	require.ElementsMatch(t, []string{"step#1", "step#2"}, []string{r.Current.Launch, r.Previous.Launch})
	require.Contains(t, r.Evidence, fmt.Sprintf("The two are threads of launches %q and %q, which ran at once: only the host's order", r.Previous.Launch, r.Current.Launch))
	require.NotContains(t, r.Evidence, "grid sync", "no grid sync orders two launches")
}

// TestConcurrentLaunchesAtomics: launches running at once may share a
// word through device-scope atomics, not block-scope ones. The device's
// detector fails the test at its end on any race not expected.
func TestConcurrentLaunchesAtomics(t *testing.T) {
	t.Parallel()
	for _, s := range []scope.Scope{scope.Device, scope.Block} {
		t.Run(s.String(), func(t *testing.T) {
			d := racetest.Device(t)
			x := gpu.Alloc[int32](d, "x", 1)
			overlapping(t, d, nil, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, s) })
			if s == scope.Block {
				require.Len(t, racetest.Expect(t, racetest.DetectorOf(d), race.ScopedAtomic, x), 1)
			}
		})
	}
}

// TestHostOrderedLaunches: a launch that returned before the next started
// is ordered before it, though the device's detector saw both.
func TestHostOrderedLaunches(t *testing.T) {
	t.Parallel()
	d := racetest.Device(t) // fails the test at its end on any race
	x := gpu.Alloc[int32](d, "x", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
	for range 3 {
		require.NoError(t, d.Launch(context.Background(), cfg, increment(x)))
	}
	require.Equal(t, []int32{30}, x.Host())
}

// TestHostOrderedLaunchesRecordNothing: a launch that runs alone keeps no
// cross-launch record, so under the device's detector it allocates what it
// does under its own detector, however many accesses it makes.
func TestHostOrderedLaunchesRecordNothing(t *testing.T) {
	allocs := map[bool]float64{}
	for _, deviceWide := range []bool{false, true} {
		d, launch, k := orderedLaunches(t, deviceWide, 16)
		allocs[deviceWide] = testing.AllocsPerRun(5, func() {
			assert.NoError(t, d.Launch(context.Background(), launch, k))
		})
	}
	// Recording would allocate per access, thousands a launch here; the
	// margin absorbs the few the race runtime's bookkeeping adds.
	require.LessOrEqual(t, allocs[true], allocs[false]+32, "allocations per launch, device-wide against per-launch")
}

// orderedLaunches returns a device, a launch configuration of 4 blocks of
// 32 threads checked by a detector on the device (deviceWide) or on the
// launch, and a kernel in which each thread loads and stores its own word
// n times.
func orderedLaunches(tb testing.TB, deviceWide bool, n int) (*gpu.Device, gpu.LaunchConfig, gpu.Kernel) {
	det := race.New(race.Options{Family: race.IGUARD})
	cfg := gpu.DeviceConfig{}
	launch := gpu.LaunchConfig{Name: "ordered", Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}}
	if deviceWide {
		cfg.Observer = det
	} else {
		launch.Observer = det
	}
	d, err := gpu.NewDevice(cfg)
	require.NoError(tb, err)
	x := gpu.Alloc[uint32](d, "x", 4*32)
	return d, launch, func(t *gpu.Thread) {
		i := t.GlobalID()
		for range n {
			x.Store(t, i, x.Load(t, i)+1)
		}
	}
}

// BenchmarkHostOrderedLaunches measures launches the host runs one after
// another, checked by a detector attached to the device and by one given
// to each launch: the cost of the device-wide detector's cross-launch
// bookkeeping when no two launches overlap.
func BenchmarkHostOrderedLaunches(b *testing.B) {
	for _, deviceWide := range []bool{false, true} {
		b.Run(fmt.Sprintf("device-wide=%v", deviceWide), func(b *testing.B) {
			d, launch, k := orderedLaunches(b, deviceWide, 256)
			b.ReportAllocs()
			for b.Loop() {
				require.NoError(b, d.Launch(context.Background(), launch, k))
			}
		})
	}
}
