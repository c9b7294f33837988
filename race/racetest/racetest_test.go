package racetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// recorder is a testing.TB that keeps its failures and its cleanups; the
// rest is the test's own.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

// record returns a recorder for t.
func record(t *testing.T) *recorder { return &recorder{TB: t} }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// errFatal is the panic with which recorder's Fatalf ends the code that
// called it, which run recovers.
type errFatal struct{}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(errFatal{})
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// run calls f as a test body, then the cleanups it registered, last
// first, as the testing package would.
func (r *recorder) run(f func()) {
	func() {
		defer func() {
			if v := recover(); v != nil && v != (errFatal{}) {
				panic(v)
			}
		}()
		f()
	}()
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// TestLaunchFailsOnEveryRace: each race of the launch fails the test once.
func TestLaunchFailsOnEveryRace(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 2)
	rec := record(t)
	racetest.Launch(rec, d, gpu.LaunchConfig{Name: "racy", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		x.AtomicAdd(t, 0, 1, scope.Block) // scoped atomic across blocks
		x.Store(t, 1, 1)                  // missing device fence
	})
	require.Len(t, rec.errs, 2)
	all := strings.Join(rec.errs, "\n")
	require.Contains(t, all, "(scoped-atomic)")
	require.Contains(t, all, "(missing-device-fence)")
}

// TestLaunchPassesCleanKernels: a launch with no race fails nothing.
func TestLaunchPassesCleanKernels(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 64)
	n := gpu.Alloc[int32](d, "n", 1)
	rec := record(t)
	det := racetest.Launch(rec, d, gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}}, func(t *gpu.Thread) {
		n.AtomicAdd(t, 0, 1, scope.Device)
		x.Store(t, t.GlobalID(), 1)
	})
	require.Empty(t, rec.errs)
	require.Empty(t, det.Reports())
}

// TestLaunchReportsLaunchErrors: a launch's error, an index out of range
// here, fails the test.
func TestLaunchReportsLaunchErrors(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	rec := record(t)
	racetest.Launch(rec, d, gpu.LaunchConfig{Name: "oob", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		x.Store(t, 5, 1)
	})
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], "index 5 out of range")
}

// TestLaunchFuncKeepsOtherErrors: a halt on the first race is not an
// error of its own, but another thread's out-of-range index still is. One
// block under fibers runs its threads in rank order, so thread 0 faults
// before threads 1 and 2 race.
func TestLaunchFuncKeepsOtherErrors(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 4)
	det := race.New(race.Options{HaltOnFirst: true})
	launch := racetest.LaunchFunc(d, det, gpu.Fibers)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 3}}
	err = launch(context.Background(), cfg, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
			x.Store(t, 99, 1) // out of range
			return
		}
		x.Store(t, 0, int32(t.ThreadRank())) // threads 1 and 2 race
	})
	var re *gpu.RangeError
	require.ErrorAs(t, err, &re, "the out-of-range error survives the halt")
	var h *race.Halt
	require.False(t, errors.As(err, &h), "the halt itself is not returned")
	require.Len(t, det.Reports(), 1, "the race was reported")
}

// TestLaunchStopsASpinningKernel: a kernel that spins forever, making
// progress all the while so the livelock watchdog cannot call it stuck,
// fails the test within the Timeout option with the stall listing.
func TestLaunchStopsASpinningKernel(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	n := gpu.Alloc[int32](d, "n", 1)
	rec := record(t)
	start := time.Now()
	racetest.Launch(rec, d, gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}}, func(t *gpu.Thread) {
		for {
			n.AtomicAdd(t, 0, 1, scope.Device)
		}
	}, racetest.Timeout(100*time.Millisecond))
	require.Less(t, time.Since(start), 5*time.Second)
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], `racetest: launch "spin"`)
	require.Contains(t, rec.errs[0], "timeout")
	require.Contains(t, rec.errs[0], "racetest_test.go:", "the listing names the line each thread spins at")
}

// soonTB is a recorder whose test has a deadline, as go test -timeout
// gives one.
type soonTB struct {
	*recorder
	deadline time.Time
}

func (s soonTB) Deadline() (time.Time, bool) { return s.deadline, true }

// TestLaunchEndsBeforeTheTestsDeadline: with no Timeout option, a kernel
// that spins forever stops before the test's own deadline, so the test
// fails with the stall listing rather than go test's timeout panic.
func TestLaunchEndsBeforeTheTestsDeadline(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	n := gpu.Alloc[int32](d, "n", 1)
	deadline := time.Now().Add(4500 * time.Millisecond) // the launch stops at half a second
	tb := soonTB{record(t), deadline}
	racetest.Launch(tb, d, gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		for {
			n.AtomicAdd(t, 0, 1, scope.Device)
		}
	})
	require.True(t, time.Now().Before(deadline), "stopped before the deadline")
	require.Len(t, tb.errs, 1)
	require.Contains(t, tb.errs[0], "deadline exceeded")
	require.Contains(t, tb.errs[0], "racetest_test.go:")
}

// TestLaunchReturnsBeforeTheTestsDeadlineWithoutAThread: a thread that
// never calls into the runtime (here blocked in plain Go) cannot be
// stopped; Launch gives up on it two seconds after the launch stopped, and
// that must still come before the test's deadline, or go test's timeout
// panic kills the binary and the listing is lost.
func TestLaunchReturnsBeforeTheTestsDeadlineWithoutAThread(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the launch's two-second grace")
	}
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	block := make(chan struct{})
	defer close(block) // lets the abandoned thread end
	deadline := time.Now().Add(5 * time.Second)
	tb := soonTB{record(t), deadline}
	racetest.Launch(tb, d, gpu.LaunchConfig{Name: "stuck", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}}, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
			<-block
		}
		t.SyncThreads()
	})
	require.True(t, time.Now().Before(deadline), "returned before the deadline")
	require.Len(t, tb.errs, 1)
	require.Contains(t, tb.errs[0], `racetest: launch "stuck"`)
	require.Contains(t, tb.errs[0], "left running")
}
