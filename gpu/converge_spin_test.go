package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestActiveMaskWithSpinningLane: lane 1 spins on a flag that lane 0 sets
// only after ActiveMask returns. __activemask never blocks on a GPU, so the
// spinning lane must not hold lane 0 at the convergence point forever.
func TestActiveMaskWithSpinningLane(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		flag := gpu.Alloc[int32](d, "flag", 1)
		mask := gpu.Alloc[uint64](d, "mask", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Executor: ex}
		err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
			if t.Lane() == 1 {
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
				return
			}
			mask.Store(t, 0, gpu.ActiveMask(t))
			flag.AtomicStore(t, 0, 1, scope.Device)
		})
		require.NoError(t, err)
		require.Equal(t, uint64(1), mask.Host()[0], "only lane 0 is converged at ActiveMask")
	})
}
