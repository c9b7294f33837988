package race_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// onTwoDevices runs, on each of two devices that det observes, a launch of
// two blocks of one thread, all four threads running at once: each waits
// for the others on a host counter (two devices share no memory to meet
// in), then runs its device's kernel. The first buffer of each device,
// "x", has the same gpu.Memory.ID on both. It returns the devices.
func onTwoDevices(t *testing.T, det *race.Detector, kernel func(d int, x gpu.Buffer[int32]) gpu.Kernel) [2]*gpu.Device {
	t.Helper()
	var devs [2]*gpu.Device
	var started atomic.Int32
	met := make(chan bool, 4)
	errs := make(chan error, 2)
	for i := range devs {
		d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: det})
		require.NoError(t, err)
		devs[i] = d
		x := gpu.Alloc[int32](d, "x", 16)
		k := kernel(i, x)
		go func() {
			cfg := gpu.LaunchConfig{Name: fmt.Sprint("on", i), Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
			errs <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
				started.Add(1)
				deadline := time.Now().Add(10 * time.Second)
				for started.Load() < 4 && time.Now().Before(deadline) {
					runtime.Gosched()
				}
				met <- started.Load() == 4
				k(t)
			})
		}()
	}
	for range 2 {
		require.NoError(t, <-errs)
	}
	for range 4 {
		require.True(t, <-met, "the four threads ran at once")
	}
	return devs
}

// TestTwoDevicesNoAlias: one detector observing race-free launches that
// overlap on two devices reports nothing, though each device's first
// buffer has the same id and its threads write the same elements of it;
// run many times, since the overlap varies. A race on one of the devices
// is still reported, on that device's buffer only.
func TestTwoDevicesNoAlias(t *testing.T) {
	t.Parallel()
	for _, opt := range []race.Options{{}, {Precise: true}} {
		fill := func(_ int, x gpu.Buffer[int32]) gpu.Kernel {
			return func(t *gpu.Thread) {
				for i := range 8 {
					x.Store(t, t.BlockRank()*8+i, int32(i))
				}
			}
		}
		for run := range 25 {
			det := race.New(opt)
			onTwoDevices(t, det, fill)
			require.Empty(t, det.Reports(), "run %d, precise %v", run, opt.Exact())
		}

		det := race.New(opt)
		devs := onTwoDevices(t, det, func(d int, x gpu.Buffer[int32]) gpu.Kernel {
			if d == 1 {
				return fill(d, x)
			}
			return func(t *gpu.Thread) { x.Store(t, 0, int32(t.BlockRank())) } // both blocks: a race
		})
		rs := det.Reports()
		require.NotEmpty(t, rs, "the race on device 0, precise %v", opt.Exact())
		for _, r := range rs {
			require.Equal(t, devs[0].ID(), r.Mem.DeviceID, "%v", r)
			require.Equal(t, "on0", r.Launch)
		}
	}
}

// TestForeignBufferDetected: under a detector, a buffer of another
// device fails the launch as it does without one (one error counting
// both threads), and the detector reports nothing about it.
func TestForeignBufferDetected(t *testing.T) {
	t.Parallel()
	det := race.New(race.Options{})
	a, err := gpu.NewDevice(gpu.DeviceConfig{Name: "a"})
	require.NoError(t, err)
	b, err := gpu.NewDevice(gpu.DeviceConfig{Name: "b", Observer: det})
	require.NoError(t, err)
	x := gpu.Alloc[int32](a, "x", 1)
	gpu.Alloc[int32](b, "y", 1) // b's memory with x's id
	cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	err = b.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) })
	var fe *gpu.ForeignError
	require.ErrorAs(t, err, &fe)
	require.ErrorContains(t, err, fmt.Sprintf(`atomicAdd index 0 of global "x", allocated on device %d "a", in a launch on device %d "b"`, a.ID(), b.ID()))
	require.ErrorContains(t, err, "and 1 other thread", "both threads, counted in one error")
	require.Empty(t, det.Reports())
	require.Equal(t, []int32{0}, x.Host())
}
