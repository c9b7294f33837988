package gpu_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/warpguard/warpguard/gpu"
)

// barrierKernel meets at two barriers, so that every thread but the last
// to arrive parks, each on a fiber of its own.
func barrierKernel(t *gpu.Thread) {
	t.SyncThreads()
	t.SyncThreads()
}

// TestCloseEndsFibers: a device keeps the fibers of its launches, and
// the goroutines of its Goroutines launches, idle between them, and Close
// ends every one, so goleak passes after Close. It is not parallel, so no
// other test's goroutines are counted.
func TestCloseEndsFibers(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	require.NoError(t, launch1D(d, gpu.Fibers, 4, 64, barrierKernel))
	require.NoError(t, launch1D(d, gpu.Goroutines, 4, 64, barrierKernel))
	goleak.VerifyNone(t, ignoreIdle(baseline)...) // the launches left only idle fibers and goroutines
	require.Greater(t, runtime.NumGoroutine(), 64, "the device keeps them")
	require.NoError(t, d.Close())
	goleak.VerifyNone(t, baseline)
}

// TestLaunchAfterClose: a launch on a closed device fails before any
// thread runs, naming the kernel and the device; Close is idempotent.
func TestLaunchAfterClose(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{Name: "tiny"})
	require.NoError(t, err)
	require.NoError(t, d.Close())
	require.NoError(t, d.Close(), "a second Close")
	ran := false
	cfg := gpu.LaunchConfig{Name: "late", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
	err = d.Launch(context.Background(), cfg, func(*gpu.Thread) { ran = true })
	require.ErrorIs(t, err, gpu.ErrDeviceClosed)
	require.EqualError(t, err, "gpu: late: not started on tiny: gpu: device closed")
	require.False(t, ran)
	buf := gpu.FromHost(d, "buf", []int32{1, 2, 3, 4})
	require.Equal(t, []int32{1, 2, 3, 4}, buf.Host(), "buffers stay usable from the host")
}

// TestCloseInvalid: Close of a nil Device, or of one not made by
// NewDevice, is an error, not a panic.
func TestCloseInvalid(t *testing.T) {
	var nilDev *gpu.Device
	require.EqualError(t, nilDev.Close(), "gpu: Close of a nil *Device")
	require.EqualError(t, new(gpu.Device).Close(), "gpu: Close of a Device not made by NewDevice")
}

// TestCloseDuringLaunch: Close while a launch runs lets it finish; the
// fibers it gives back afterwards end, so goleak passes once it returns.
// It is not parallel, so no other test's goroutines are counted.
func TestCloseDuringLaunch(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Watchdog: -1}
		done <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.GlobalID() == 0 {
				once.Do(func() { close(started) })
				<-release // the other threads wait at the barrier meanwhile
			}
			barrierKernel(t)
		})
	}()
	<-started
	require.NoError(t, d.Close())
	close(release)
	require.NoError(t, <-done)
	goleak.VerifyNone(t, baseline)
}

// TestDroppedDeviceEndsFibers: a device dropped without Close ends its
// idle fibers and goroutines once the garbage collector finds it unreachable.
func TestDroppedDeviceEndsFibers(t *testing.T) {
	baseline := goleak.IgnoreCurrent()
	func() {
		d, err := gpu.NewDevice(gpu.DeviceConfig{})
		require.NoError(t, err)
		require.NoError(t, launch1D(d, gpu.Fibers, 4, 64, barrierKernel))
		require.NoError(t, launch1D(d, gpu.Goroutines, 4, 64, barrierKernel))
	}()
	runtime.GC() // queues the device's cleanup; goleak retries while it runs
	goleak.VerifyNone(t, baseline)
}
