package kernels

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/kind"
)

// runTiledMatMul runs configuration p of lib/matmul on a fresh device
// with the executor and observer given, and returns it and the launch's
// error.
func runTiledMatMul(t *testing.T, p Params, ex gpu.Executor, obs gpu.Observer) (*tiledMatMul, error) {
	d := testDevice(t)
	return launchTiledMatMul(d, newTiledMatMul(d, p), ex, obs)
}

// launchTiledMatMul launches m on d with the executor and observer given.
func launchTiledMatMul(d *gpu.Device, m *tiledMatMul, ex gpu.Executor, obs gpu.Observer) (*tiledMatMul, error) {
	cfg := m.config()
	cfg.Executor, cfg.Observer = ex, obs
	return m, d.Launch(context.Background(), cfg, m.kernel)
}

// TestTiledMatMulSizes: the default and Paper sizes (the issue's
// 128×128; not with -short) compute C = A·B on both executors.
func TestTiledMatMulSizes(t *testing.T) {
	sizes := []Size{Default, Paper}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, size := range sizes {
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			m, err := runTiledMatMul(t, Params{Size: size, Seed: 1}, ex, nil)
			require.NoError(t, err, "%v %v", size, ex)
			require.NoError(t, m.check(), "%v %v", size, ex)
			require.Equal(t, map[Size]int{Default: 64, Paper: 128}[size], m.n, "%v", size)
		}
	}
}

// TestTiledMatMulCheckFails: the output check compares every element of
// C, so a C the kernel never computed fails it.
func TestTiledMatMulCheckFails(t *testing.T) {
	require.ErrorContains(t, newTiledMatMul(testDevice(t), Params{Seed: 1}).check(), "C[")
}

// TestTiledMatMulMissingBarrierKinds: a missing __syncthreads races both
// ways in both detector families: a thread reads A's tile elements its own
// warp's lanes write (missing-syncwarp) and B's tile elements other warps
// write (missing-block-fence). A 32×32 product, two steps of 2×2 blocks,
// has both races and keeps the test quick under go test -race.
func TestTiledMatMulMissingBarrierKinds(t *testing.T) {
	for _, fam := range []race.Family{race.Exact, race.IGUARD} {
		for _, in := range []string{injNoSyncAfterLoad, injNoSyncAfterUse} {
			det := race.New(race.Options{Family: fam, History: true})
			d := testDevice(t)
			_, err := launchTiledMatMul(d, newTiledMatMulN(d, 2*matTile, Params{Seed: 1, Inject: in}), gpu.Fibers, det)
			require.NoError(t, err, "%v %s", fam, in)
			kinds := map[kind.Kind]bool{}
			for _, r := range det.Reports() {
				kinds[r.Kind] = true
			}
			assert.Equal(t, map[kind.Kind]bool{kind.MissingSyncwarp: true, kind.MissingBlockFence: true}, kinds, "%v %s", fam, in)
		}
	}
}
