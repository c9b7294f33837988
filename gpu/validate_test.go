package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestThreadCountOverflow: the largest grid CUDA allows, of the largest
// blocks, has more than 2^63 threads; the 2^40 bound must reject it rather
// than overflow to a negative count and run.
func TestThreadCountOverflow(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	ran := false
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1<<31 - 1, Y: 65535, Z: 65535}, Block: gpu.Dim3{X: 1024}}
	err := d.Launch(context.Background(), cfg, func(*gpu.Thread) { ran = true })
	require.ErrorContains(t, err, "more than 2^40 threads")
	require.False(t, ran)
}

// TestUnusableDevice: a nil *Device, a zero Device and a nil context give
// errors, not panics.
func TestUnusableDevice(t *testing.T) {
	t.Parallel()
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
	nop := func(*gpu.Thread) {}
	var nilDev *gpu.Device
	require.EqualError(t, nilDev.Launch(context.Background(), cfg, nop), "gpu: Launch on a nil *Device")
	require.EqualError(t, new(gpu.Device).Launch(context.Background(), cfg, nop), "gpu: Launch on a Device not made by NewDevice")
	//lint:ignore SA1012 a nil context is the input under test
	require.EqualError(t, newDevice(t).Launch(nil, cfg, nop), "gpu: Launch with a nil context.Context") //nolint:staticcheck
}

// TestAllocTooLarge: a length whose bytes overflow, or exceed the global
// address space, panics with a message before anything is allocated
// instead of returning an empty buffer or exhausting the host's memory.
func TestAllocTooLarge(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	require.PanicsWithValue(t, `gpu: Alloc "x" of 4611686018427387904 float32 elements needs more than the 1099511627776 bytes of the global address space`,
		func() { gpu.Alloc[float32](d, "x", 1<<62) })
	require.Panics(t, func() { gpu.Alloc[int64](d, "y", 1<<40) })
	require.PanicsWithValue(t, `gpu: Alloc "z" on a nil *Device`, func() { gpu.Alloc[int32](nil, "z", 1) })
}

// TestSharedHuge: a shared array past the block's limit fails the
// thread with an error before it is allocated, whether its bytes overflow
// an int or would merely exhaust the host.
func TestSharedHuge(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		for _, n := range []int{1 << 36, 1 << 62} {
			err := launch1D(d, ex, 1, 1, func(t *gpu.Thread) { gpu.Shared[float32](t, "s", n) })
			require.ErrorContains(t, err, `shared array "s" of `)
			require.ErrorContains(t, err, "the block has 49152 of 49152 bytes left")
		}
	})
}

// nilObs is an Observer type for TestNilObserver; a nil *nilObs is the
// typed nil under test.
type nilObs struct{ gpu.Observer }

// TestNilObserver: an Observer that holds a nil pointer (a detector left
// unset, "var det *race.Detector") is an error naming its type, at the
// launch or at NewDevice, where its first method call crashed the process.
func TestNilObserver(t *testing.T) {
	t.Parallel()
	var o *nilObs
	d := newDevice(t)
	ran := false
	cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: o}
	err := d.Launch(context.Background(), cfg, func(*gpu.Thread) { ran = true })
	require.EqualError(t, err, "gpu: k: LaunchConfig.Observer is a nil *gpu_test.nilObs; leave the Observer nil for a launch with none")
	require.False(t, ran)
	_, err = gpu.NewDevice(gpu.DeviceConfig{Observer: o})
	require.EqualError(t, err, "gpu: device Observer is a nil *gpu_test.nilObs; leave the Observer nil for a device with none")
}
