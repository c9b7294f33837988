package racetest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// count is library code that launches a kernel of its own: every thread
// adds one to *n. blockScope makes its atomic block-scoped, a scoped race
// across blocks.
func count(ctx context.Context, d *gpu.Device, n gpu.Buffer[int32], blockScope bool) error {
	s := scope.Device
	if blockScope {
		s = scope.Block
	}
	cfg := gpu.LaunchConfig{Name: "count", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}}
	return d.Launch(ctx, cfg, func(t *gpu.Thread) { n.AtomicAdd(t, 0, 1, s) })
}

// TestDeviceChecksLaunchesItDoesNotMake: code handed the device launches
// its own kernels; their races fail the test at its end, and only theirs.
func TestDeviceChecksLaunchesItDoesNotMake(t *testing.T) {
	t.Parallel()
	for _, racy := range []bool{false, true} {
		rec := record(t)
		rec.run(func() {
			d := racetest.Device(rec)
			n := gpu.Alloc[int32](d, "n", 1)
			require.NoError(t, count(t.Context(), d, n, racy))
			require.NotNil(t, racetest.DetectorOf(d))
			require.Empty(t, rec.errs, "races fail the test when it ends, not before")
		})
		if !racy {
			require.Empty(t, rec.errs)
			continue
		}
		require.Len(t, rec.errs, 1)
		require.Contains(t, rec.errs[0], "(scoped-atomic)")
	}
}

// TestDetectorOfAPlainDevice: a device made without Device has no
// detector to return.
func TestDetectorOfAPlainDevice(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	require.Nil(t, racetest.DetectorOf(d))
	require.Nil(t, racetest.DetectorOf(nil))
}

// TestNilDetector: Check and Expect given DetectorOf's nil for a plain
// device fail the test, saying so, rather than crash the test binary.
func TestNilDetector(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	const nilDet = ": nil detector (DetectorOf returns nil for a device that racetest.Device did not make)"
	rec := record(t)
	rec.run(func() { racetest.Check(rec, racetest.DetectorOf(d)) })
	require.Equal(t, []string{"racetest: Check" + nilDet}, rec.errs)
	rec = record(t)
	rec.run(func() { racetest.Expect(rec, racetest.DetectorOf(d), race.MissingDeviceFence, x) })
	require.Equal(t, []string{"racetest: Expect" + nilDet}, rec.errs)
	rec = record(t)
	rec.run(func() { racetest.Expect(rec, racetest.New(), race.MissingDeviceFence, nil) })
	require.Equal(t, []string{"racetest: Expect: nil memory"}, rec.errs)
}

// TestDeviceChecksConcurrentLaunches: two launches running at once, each
// adding to one word with plain loads and stores, lose updates; the
// device's detector reports them although each launch alone is race-free
// (one thread each).
func TestDeviceChecksConcurrentLaunches(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec)
		x := gpu.Alloc[int32](d, "x", 1)
		var started, wg sync.WaitGroup
		started.Add(2)
		for _, name := range []string{"a", "b"} {
			wg.Go(func() {
				cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
				assert.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
					if t.ThreadRank() == 0 {
						started.Done()
						started.Wait() // both launches are running
					}
					x.Store(t, 0, x.Load(t, 0)+1)
				}))
			})
		}
		wg.Wait()
	})
	require.NotEmpty(t, rec.errs)
	require.Contains(t, strings.Join(rec.errs, "\n"), `of launch "`)
}

// TestDeviceOptions: DeviceConfig shapes the device and the detector's
// options reach the device's detector.
func TestDeviceOptions(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec, racetest.DeviceConfig(gpu.DeviceConfig{Name: "small", WarpSize: 8}), racetest.MaxReports(1))
		require.Equal(t, "small", d.Config().Name)
		require.Equal(t, 8, d.Config().WarpSize)
		x := gpu.Alloc[int32](d, "x", 2)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
		require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			x.AtomicAdd(t, 0, 1, scope.Block)
			x.Store(t, 1, 1)
		}))
	})
	require.Len(t, rec.errs, 2, "one report kept, and the count of those dropped")
	require.Contains(t, rec.errs[1], "1 more race not shown")
}

// TestDeviceTimeout: the Timeout option of a Device bounds the launches
// of code the test does not control.
func TestDeviceTimeout(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec, racetest.Timeout(100*time.Millisecond))
		n := gpu.Alloc[int32](d, "n", 1)
		err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
			for {
				n.AtomicAdd(t, 0, 1, scope.Device)
			}
		})
		require.ErrorIs(t, err, gpu.ErrTimeout)
	})
	require.Empty(t, rec.errs)
}

// TestNegativeTimeout: a negative Timeout fails the test before anything
// is made or launched, as gpu.LaunchConfig.Timeout rejects one.
func TestNegativeTimeout(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	ran := false
	const want = "racetest: Timeout(-1s): a launch's timeout must not be negative"
	rec := record(t)
	rec.run(func() {
		racetest.Launch(rec, d, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) { ran = true },
			racetest.Timeout(-time.Second))
	})
	require.Equal(t, []string{want}, rec.errs)
	require.False(t, ran)
	rec = record(t)
	rec.run(func() { racetest.Device(rec, racetest.Timeout(-time.Second)) })
	require.Equal(t, []string{want}, rec.errs)
}

// TestMaxReportsBelowOne: MaxReports(0) or a negative bound fails the
// test before anything is launched, as WARPGUARD's max_reports=0 does,
// rather than meaning race.Options' default of 100.
func TestMaxReportsBelowOne(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	for _, n := range []int{0, -1} {
		ran := false
		rec := record(t)
		rec.run(func() {
			racetest.Launch(rec, d, gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) { ran = true },
				racetest.MaxReports(n))
		})
		require.Equal(t, []string{fmt.Sprintf("racetest: MaxReports(%d): want at least 1 report kept", n)}, rec.errs)
		require.False(t, ran)
	}
}

// TestDeviceEndsBeforeTheTestsDeadline: a Device's launch whose caller
// passes a context with no deadline still stops before the test's
// deadline, as racetest.Launch does, so the test fails with the stall
// listing rather than go test's timeout panic.
func TestDeviceEndsBeforeTheTestsDeadline(t *testing.T) {
	t.Parallel()
	deadline := time.Now().Add(4500 * time.Millisecond) // the launches stop at half a second
	tb := soonTB{record(t), deadline}
	var err error
	tb.run(func() {
		d := racetest.Device(tb)
		n := gpu.Alloc[int32](d, "n", 1)
		err = d.Launch(context.Background(), gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
			for {
				n.AtomicAdd(t, 0, 1, scope.Device)
			}
		})
	})
	require.True(t, time.Now().Before(deadline), "stopped before the deadline")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "device_test.go:", "the listing names the line the thread spins at")
	require.Empty(t, tb.errs)
}

// TestDeviceHaltPrintsTheReportOnce: under HaltOnFirst the launch's error
// names the racing line in one line, with no goroutine dump, and the
// report itself is printed once, by the check at the test's end.
func TestDeviceHaltPrintsTheReportOnce(t *testing.T) {
	t.Parallel()
	rec := record(t)
	var launchErr error
	rec.run(func() {
		d := racetest.Device(rec, racetest.HaltOnFirst())
		x := gpu.Alloc[int32](d, "x", 1)
		cfg := gpu.LaunchConfig{Name: "halt", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
		launchErr = d.Launch(t.Context(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) })
	})
	require.Error(t, launchErr)
	require.Len(t, rec.errs, 1)
	all := launchErr.Error() + "\n" + rec.errs[0]
	require.Equal(t, 1, strings.Count(all, "WARNING: SCOPED RACE"), "the report, once:\n%s", all)
	require.NotContains(t, launchErr.Error(), "goroutine ", "no stack dump")
	require.Contains(t, launchErr.Error(), "device_test.go:", "the racing line")
	require.NotContains(t, launchErr.Error(), "findings.go")
}

// deviceHelperEnv runs TestDeviceFailureHelper's racy body when set.
const deviceHelperEnv = "RACETEST_DEVICE_HELPER"

// TestDeviceFailureHelper is run by TestDeviceFailureNamesTheTestsLine in
// a child process, where it fails on purpose; otherwise it does nothing.
func TestDeviceFailureHelper(t *testing.T) {
	if os.Getenv(deviceHelperEnv) != "1" {
		t.Skip("run by TestDeviceFailureNamesTheTestsLine")
	}
	_, _, line, _ := runtime.Caller(0)
	fmt.Printf("device line %d\n", line+2)
	d := racetest.Device(t)
	x := gpu.Alloc[int32](d, "x", 1)
	cfg := gpu.LaunchConfig{Name: "racy", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) }))
}

// TestDeviceFailureNamesTheTestsLine: go test prints a Device's failure
// at the test's line that made the device, not at a line of racetest.
func TestDeviceFailureNamesTheTestsLine(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestDeviceFailureHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), deviceHelperEnv+"=1", race.EnvVar+"=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the helper fails:\n%s", out)
	require.Contains(t, string(out), "device line", "the helper ran")
	var line int
	_, scanErr := fmt.Sscanf(string(out[bytes.Index(out, []byte("device line")):]), "device line %d", &line)
	require.NoError(t, scanErr, "%s", out)
	require.Contains(t, string(out), fmt.Sprintf("device_test.go:%d: ==================", line), "%s", out)
	require.NotContains(t, string(out), "device.go:", "%s", out)
}

// TestDeviceClosedAtEnd: the device Device returns is closed when its
// test ends, so its fibers end with the test and a late launch fails.
func TestDeviceClosedAtEnd(t *testing.T) {
	t.Parallel()
	rec := record(t)
	var d *gpu.Device
	rec.run(func() {
		d = racetest.Device(rec)
		n := gpu.Alloc[int32](d, "n", 1)
		require.NoError(t, count(t.Context(), d, n, false))
	})
	require.Empty(t, rec.errs)
	n := gpu.Alloc[int32](d, "n", 1)
	require.ErrorIs(t, count(t.Context(), d, n, false), gpu.ErrDeviceClosed)
}
