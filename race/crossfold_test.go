package race_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// wroteThenOverlapped runs launch "first", which stores to x and then
// waits for launch "second" to start; the test's goroutine starts
// "second" only once the store is done, so the store precedes the
// second launch's start. "second" stores to x too. Both launches run
// at once, ordered by nothing, so the stores race.
func wroteThenOverlapped(t *testing.T, d *gpu.Device, obs gpu.Observer, x gpu.Buffer[int32]) {
	t.Helper()
	flag := gpu.Alloc[int32](d, "flag", 1)
	wrote := make(chan struct{})
	var once sync.Once
	errs := make(chan error, 1)
	go func() {
		cfg := gpu.LaunchConfig{Name: "first", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
		errs <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.Store(t, 0, 1)
			once.Do(func() { close(wrote) })
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
		})
	}()
	<-wrote
	cfg := gpu.LaunchConfig{Name: "second", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		x.Store(t, 0, 2)
		flag.AtomicStore(t, 0, 1, scope.Device)
	}))
	require.NoError(t, <-errs)
}

// TestOverlapAfterFirstAccess: a launch's accesses made before a second
// launch started beside it race with the second launch's, and the
// default mode reports them every time, with history or without, as the
// device's detector or each launch's own.
func TestOverlapAfterFirstAccess(t *testing.T) {
	t.Parallel()
	for _, history := range []bool{false, true} {
		for _, deviceWide := range []bool{false, true} {
			t.Run(fmt.Sprintf("history=%v/device-wide=%v", history, deviceWide), func(t *testing.T) {
				for i := range 10 {
					det := race.New(race.Options{History: history})
					d, obs := detectedDevice(t, det, deviceWide)
					x := gpu.Alloc[int32](d, "x", 1)
					wroteThenOverlapped(t, d, obs, x)
					rs := det.Reports()
					require.NotEmpty(t, rs, "run %d", i)
					r := rs[0]
					require.Equal(t, race.MissingDeviceFence, r.Kind, "run %d", i)
					require.Equal(t, "x", r.Mem.Name)
					require.ElementsMatch(t, []string{"first", "second"}, []string{r.Launch, r.Previous.Launch}, "run %d", i)
					require.Zero(t, det.MetadataBytes())
				}
			})
		}
	}
}

// detectedDevice returns a device checked by det, as the device's
// observer (deviceWide) or as the observer to give each launch, which
// it returns.
func detectedDevice(t *testing.T, det *race.Detector, deviceWide bool) (*gpu.Device, gpu.Observer) {
	t.Helper()
	cfg := gpu.DeviceConfig{}
	var obs gpu.Observer = det
	if deviceWide {
		cfg.Observer, obs = det, nil
	}
	d, err := gpu.NewDevice(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d, obs
}

// TestOverlappingGoroutinesRace: two goroutines launch on one detector,
// each kernel storing to one word and then waiting until both launches
// have started, so the launches overlap but a store may come before the
// other launch starts. The race is reported on every run.
func TestOverlappingGoroutinesRace(t *testing.T) {
	t.Parallel()
	for i := range 20 {
		det := race.New(race.Options{})
		d, obs := detectedDevice(t, det, false)
		x := gpu.Alloc[int32](d, "x", 1)
		started := gpu.Alloc[int32](d, "started", 1)
		errs := make(chan error, 2)
		for j := range 2 {
			go func() {
				cfg := gpu.LaunchConfig{Name: fmt.Sprint("launch", j), Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
				errs <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					x.Store(t, 0, int32(j))
					started.AtomicAdd(t, 0, 1, scope.Device)
					for started.AtomicLoad(t, 0, scope.Device) < 2 {
					}
				})
			}()
		}
		for range 2 {
			require.NoError(t, <-errs)
		}
		require.NotEmpty(t, det.Reports(), "run %d", i)
	}
}
