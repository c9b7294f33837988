package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// eachExecutor runs f as a subtest under every executor: they must all give
// the same results.
func eachExecutor(t *testing.T, f func(t *testing.T, ex gpu.Executor)) {
	t.Helper()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			t.Parallel()
			f(t, ex)
		})
	}
}

// newDevice returns a device with default limits.
func newDevice(t testing.TB) *gpu.Device {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	closeAtEnd(t, d)
	return d
}

// closeAtEnd closes d when the test ends, so that the package's leak
// check (TestMain) sees none of the fibers d keeps between launches.
func closeAtEnd(tb testing.TB, d *gpu.Device) {
	tb.Cleanup(func() { require.NoError(tb, d.Close()) })
}

// launch1D runs k over blocks x threads on ex.
func launch1D(d *gpu.Device, ex gpu.Executor, blocks, threads int, k gpu.Kernel) error {
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}, Executor: ex}
	return d.Launch(context.Background(), cfg, k)
}
