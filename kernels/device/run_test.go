package device_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

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
