package device_test

import (
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
	err := device.Reduce(ctx, nil, gpu.Config{}, in, in, 0, gpu.Add[float32])
	assert.EqualError(t, err, "device.Reduce: nil *gpu.Device")
	err = device.InclusiveScan(ctx, d, gpu.Config{Block: gpu.Dim3{X: 2000}}, in, in, gpu.Add[float32])
	assert.EqualError(t, err, "device.InclusiveScan: Config.Block.X is 2000; want 1 to 1024 threads")
	_, err = device.Select(ctx, d, gpu.Config{Block: gpu.Dim3{X: -1}}, in, in, func(float32) bool { return true })
	assert.EqualError(t, err, "device.Select: Config.Block.X is -1; want 1 to 1024 threads")
}
