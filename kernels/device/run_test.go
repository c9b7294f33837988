package device_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

// TestRunErrors checks what every primitive checks first: a device, and a
// block size the device allows.
func TestRunErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.Alloc[float32](d, "in", 10)
	err := device.Reduce(ctx, nil, gpu.LaunchConfig{}, in, in, 0, gpu.Add[float32])
	assert.EqualError(t, err, "device.Reduce: nil *gpu.Device")
	err = device.InclusiveScan(ctx, d, gpu.LaunchConfig{Block: gpu.Dim3{X: 2000}}, in, in, gpu.Add[float32])
	assert.EqualError(t, err, "device.InclusiveScan: LaunchConfig.Block.X is 2000; want 1 to 1024 threads")
	_, err = device.Select(ctx, d, gpu.LaunchConfig{Block: gpu.Dim3{X: -1}}, in, in, func(float32) bool { return true })
	assert.EqualError(t, err, "device.Select: LaunchConfig.Block.X is -1; want 1 to 1024 threads")
}

// TestNilOperatorNamesTheCaller: a nil op is an error naming the
// primitive and the line that called it, before any launch, not a fault
// in every thread at a line of this package.
func TestNilOperatorNamesTheCaller(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in := gpu.Alloc[int32](d, "in", 100)
	offsets := gpu.FromHost(d, "offsets", []int32{0, 50, 100})
	at := func() string {
		_, _, line, _ := runtime.Caller(1)
		return fmt.Sprintf("kernels/device/run_test.go:%d", line-1)
	}
	err := device.Reduce(ctx, d, gpu.LaunchConfig{}, in, in, 0, nil)
	assert.EqualError(t, err, "device.Reduce: op is nil (called at "+at()+")")
	err = device.InclusiveScan(ctx, d, gpu.LaunchConfig{}, in, in, nil)
	assert.EqualError(t, err, "device.InclusiveScan: op is nil (called at "+at()+")")
	err = device.ExclusiveScan(ctx, d, gpu.LaunchConfig{}, in, in, 0, nil)
	assert.EqualError(t, err, "device.ExclusiveScan: op is nil (called at "+at()+")")
	err = device.SegmentedReduce(ctx, d, gpu.LaunchConfig{}, in, offsets, in, 0, nil)
	assert.EqualError(t, err, "device.SegmentedReduce: op is nil (called at "+at()+")")
}

// TestOverlappingArgumentsAreErrors passes each primitive an output that
// shares memory with an input: an error naming both, the memory and the
// calling line, before any launch, where the threads would read what
// others had overwritten. A scan in itself, from the same first element,
// is allowed and right.
func TestOverlappingArgumentsAreErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	cfg := gpu.LaunchConfig{}
	in := gpu.FromHost(d, "data", randInt32s(100, 1, 50))
	odd := func(x int32) bool { return x%2 != 0 }
	at := func() string {
		_, _, line, _ := runtime.Caller(1)
		return fmt.Sprintf("(called at kernels/device/run_test.go:%d)", line-1)
	}
	_, err := device.Select(ctx, d, cfg, in, in, odd)
	assert.EqualError(t, err, `device.Select: in and out overlap (elements 0-99 and 0-99 of global "data"); they must not share memory `+at())
	_, err = device.Partition(ctx, d, cfg, in.Slice(0, 50), in.Slice(40, 90), odd)
	assert.EqualError(t, err, `device.Partition: in and out overlap (elements 0-49 and 40-89 of global "data"); they must not share memory `+at())
	err = device.Reduce(ctx, d, cfg, in, in.Slice(99, 100), 0, gpu.Add[int32])
	assert.ErrorContains(t, err, "device.Reduce: in and out overlap (elements 0-99 and 99-99")
	err = device.InclusiveScan(ctx, d, cfg, in.Slice(1, 100), in.Slice(0, 99), gpu.Add[int32])
	assert.ErrorContains(t, err, "device.InclusiveScan: in and out overlap (elements 1-99 and 0-98")
	_, err = device.RunLengthEncode(ctx, d, cfg, in.Slice(0, 50), in.Slice(50, 100), in.Slice(0, 10))
	assert.ErrorContains(t, err, "device.RunLengthEncode: in and counts overlap")
	err = device.SortPairs(ctx, d, cfg, in.Slice(0, 50), in.Slice(25, 75))
	assert.ErrorContains(t, err, "device.SortPairs: keys and values overlap")
	err = device.HistogramEven(ctx, d, cfg, in, in.Slice(0, 8), 0, 50)
	assert.ErrorContains(t, err, "device.HistogramEven: in and hist overlap")
	offsets := gpu.FromHost(d, "offsets", []int32{0, 50, 100})
	err = device.SegmentedReduce(ctx, d, cfg, in, offsets, in.Slice(0, 2), 0, gpu.Add[int32])
	assert.ErrorContains(t, err, "device.SegmentedReduce: in and out overlap")

	want := in.Host()
	for i := 1; i < len(want); i++ {
		want[i] += want[i-1]
	}
	require.NoError(t, device.InclusiveScan(ctx, d, cfg, in, in, gpu.Add[int32]), "a scan in itself")
	assert.Equal(t, want, in.Host())
	require.NoError(t, device.InclusiveScan(ctx, d, cfg, in.Slice(0, 50), in.Slice(50, 100), gpu.Add[int32]), "disjoint views of one buffer")
}

// TestNilPredicateNamesTheCaller: a nil pred is an error as a nil op is.
func TestNilPredicateNamesTheCaller(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	in, out := gpu.Alloc[int32](d, "in", 100), gpu.Alloc[int32](d, "out", 100)
	_, err := device.Select(ctx, d, gpu.LaunchConfig{}, in, out, nil)
	_, _, line, _ := runtime.Caller(0)
	assert.EqualError(t, err, fmt.Sprintf("device.Select: pred is nil (called at kernels/device/run_test.go:%d)", line-1))
	_, err = device.Partition(ctx, d, gpu.LaunchConfig{}, in, out, nil)
	assert.ErrorContains(t, err, "device.Partition: pred is nil (called at kernels/device/run_test.go:")
}
