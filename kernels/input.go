package kernels

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/warpguard/warpguard/gpu"
)

// newRand returns the generator every input of a configuration is drawn
// from, so that one seed always gives the same input.
func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x5eed_c0de_1234_5678))
}

// randInt32s returns n values drawn uniformly from [0, limit).
func randInt32s(r *rand.Rand, n int, limit int32) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = r.Int32N(limit)
	}
	return out
}

// launchCfg is the configuration of a 1-D launch of blocks blocks of
// threads threads.
func launchCfg(name string, blocks, threads int) gpu.LaunchConfig {
	return gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}}
}

// coopCfg is launchCfg for a kernel whose blocks wait on each other: the
// launch is cooperative, so the runtime rejects a grid that does not fit
// on the device at once instead of letting it hang.
func coopCfg(name string, blocks, threads int) gpu.LaunchConfig {
	c := launchCfg(name, blocks, threads)
	c.Cooperative = true
	return c
}

// sameAll reports the first element where got and want differ.
func sameAll[T comparable](what string, got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
	return nil
}

// single returns a Run.Launch that performs one launch of k.
func single(cfg gpu.LaunchConfig, k gpu.Kernel) func(context.Context, LaunchFunc) error {
	return func(ctx context.Context, launch LaunchFunc) error { return launch(ctx, cfg, k) }
}

// warpSize32 returns an error unless d has 32-lane warps, which the
// warp-synchronous kernels are written for.
func warpSize32(d *gpu.Device, name string) error {
	if ws := d.Config().WarpSize; ws != 32 {
		return fmt.Errorf("kernels: %s needs 32-lane warps; the device has %d", name, ws)
	}
	return nil
}

// ceilDiv returns a/b rounded up.
func ceilDiv(a, b int) int { return (a + b - 1) / b }
