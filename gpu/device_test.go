package gpu_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestDeviceTimeout: DeviceConfig.Timeout stops the device's launches
// that set no timeout of their own, with the stall listing; a launch's
// own Timeout wins.
func TestDeviceTimeout(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{Timeout: 50 * time.Millisecond})
	require.NoError(t, err)
	closeAtEnd(t, d)
	n := gpu.Alloc[int32](d, "n", 1)
	spin := func(t *gpu.Thread) {
		for {
			n.AtomicAdd(t, 0, 1, scope.Device) // progress, so no livelock
		}
	}
	for _, own := range []time.Duration{0, 80 * time.Millisecond} {
		cfg := gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Timeout: own}
		err := d.Launch(context.Background(), cfg, spin)
		require.ErrorIs(t, err, gpu.ErrTimeout)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		want := "50ms"
		if own > 0 {
			want = "80ms"
		}
		require.Contains(t, err.Error(), "after "+want)
		require.Contains(t, err.Error(), "device_test.go:", "the listing names the line the thread spins at")
	}
}

// TestDeviceDeadline: DeviceConfig.Deadline stops a launch whose context
// has no deadline, with the stall listing and an error that matches
// context.DeadlineExceeded and names the device; a launch made after it
// does not start.
func TestDeviceDeadline(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		d, err := gpu.NewDevice(gpu.DeviceConfig{Name: "bounded", Deadline: time.Now().Add(100 * time.Millisecond)})
		require.NoError(t, err)
		closeAtEnd(t, d)
		n := gpu.Alloc[int32](d, "n", 1)
		cfg := gpu.LaunchConfig{Name: "spin", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 2}, Executor: ex}
		start := time.Now()
		err = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			for {
				n.AtomicAdd(t, 0, 1, scope.Device) // progress, so no livelock
			}
		})
		require.Less(t, time.Since(start), 10*time.Second, ex)
		require.ErrorIs(t, err, context.DeadlineExceeded, ex)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se, ex)
		require.Len(t, se.Threads, 4, ex)
		require.ErrorContains(t, err, "device bounded's deadline", ex)
		require.Contains(t, err.Error(), "device_test.go:", "the listing names the line the threads spin at")
		err = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {})
		require.ErrorIs(t, err, context.DeadlineExceeded, ex)
		require.ErrorContains(t, err, "gpu: spin: not started: context deadline exceeded: device bounded's deadline", ex)
	}
}

// TestDeviceSizesOverflow: sizes whose products overflow an int, or make
// more resident blocks or threads than the runtime can run at once, are
// rejected by NewDevice with an error naming the field, so that no launch
// runs none of its threads, panics in makeslice, reports a negative
// residency, or starts a goroutine per 2^40 slots.
func TestDeviceSizesOverflow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg  gpu.DeviceConfig
		want string
	}{
		{gpu.DeviceConfig{SMs: 1 << 62}, "SMs = 4611686018427387904; want 1 to 16384"},
		{gpu.DeviceConfig{SMs: math.MaxInt}, "SMs = 9223372036854775807; want 1 to 16384"},
		{gpu.DeviceConfig{SMs: 1 << 40}, "SMs = 1099511627776; want 1 to 16384"},
		{gpu.DeviceConfig{SMs: 1 << 14, MaxBlocksPerSM: 2}, "MaxBlocksPerSM = 2; want 1 to 1, so that its 16384 SMs hold at most 16384 resident blocks"},
		{gpu.DeviceConfig{MaxBlocksPerSM: math.MaxInt}, "MaxBlocksPerSM = 9223372036854775807; want 1 to 2048"},
		{gpu.DeviceConfig{MaxThreadsPerSM: math.MaxInt}, "MaxThreadsPerSM = 9223372036854775807; want at most 131072"},
		{gpu.DeviceConfig{SMs: 1024, MaxThreadsPerSM: 2048}, "MaxThreadsPerSM = 2048; want at most 1024, so that its 1024 SMs hold at most 1048576 resident threads"},
		{gpu.DeviceConfig{MaxThreadsPerBlock: math.MaxInt, MaxThreadsPerSM: math.MaxInt}, "MaxThreadsPerSM = 9223372036854775807"},
	}
	for _, c := range cases {
		d, err := gpu.NewDevice(c.cfg)
		require.ErrorContains(t, err, "gpu: device "+c.want)
		require.Nil(t, d)
	}
}

// TestDeviceAtBounds: a device at both residency bounds is accepted, and
// runs a launch of more blocks than it holds at once and a cooperative
// launch of exactly as many as it holds.
func TestDeviceAtBounds(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{SMs: 512, MaxBlocksPerSM: 32, MaxThreadsPerSM: 2048})
	require.NoError(t, err)
	closeAtEnd(t, d)
	n := gpu.Alloc[int64](d, "n", 1)
	count := func(t *gpu.Thread) { n.AtomicAdd(t, 0, 1, scope.Device) }
	require.NoError(t, d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1 << 15}, Block: gpu.Dim3{X: 2}}, count))
	require.Equal(t, []int64{1 << 16}, n.Host())
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1 << 14}, Block: gpu.Dim3{X: 1}, Cooperative: true}
	require.NoError(t, d.Launch(context.Background(), cfg, count))
	require.Equal(t, []int64{1<<16 + 1<<14}, n.Host())
	cfg.Grid.X++
	require.ErrorContains(t, d.Launch(context.Background(), cfg, count), "the device holds 16384 such blocks")
}

// TestDeviceTimeoutNegative: a negative DeviceConfig.Timeout is rejected,
// as a negative LaunchConfig.Timeout is, rather than silently meaning none.
func TestDeviceTimeoutNegative(t *testing.T) {
	t.Parallel()
	_, err := gpu.NewDevice(gpu.DeviceConfig{Timeout: -1})
	require.EqualError(t, err, "gpu: device Timeout = -1ns; want >= 0 (0 for none)")
	d := newDevice(t)
	err = d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Timeout: -1}, func(*gpu.Thread) {})
	require.ErrorContains(t, err, "negative timeout")
}

// TestDeviceIdentity: every device has its own number, which its
// memories, global and shared, carry, and by which String names it.
func TestDeviceIdentity(t *testing.T) {
	t.Parallel()
	a, err := gpu.NewDevice(gpu.DeviceConfig{Name: "a"})
	require.NoError(t, err)
	closeAtEnd(t, a)
	b := newDevice(t)
	require.NotZero(t, a.ID())
	require.NotEqual(t, a.ID(), b.ID())
	require.Equal(t, fmt.Sprintf(`device %d "a"`, a.ID()), a.String())
	require.Equal(t, fmt.Sprintf(`device %d "warpguard"`, b.ID()), b.String())
	x := gpu.Alloc[int32](a, "x", 1)
	require.Equal(t, a.ID(), x.Memory().DeviceID)
	require.Same(t, a, x.Memory().Device())
	var shared, dynamic *gpu.Memory
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, DynamicShared: 8}
	require.NoError(t, b.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		shared, dynamic = gpu.Shared[int32](t, "s", 1).Memory(), gpu.DynamicShared[int32](t).Memory()
	}))
	for _, m := range []*gpu.Memory{shared, dynamic} {
		require.Equal(t, b.ID(), m.DeviceID, "%v", m)
		require.Same(t, b, m.Device())
	}
}
