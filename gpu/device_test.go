package gpu_test

import (
	"context"
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
		cfg := gpu.Config{Name: "spin", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Timeout: own}
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
