package kernels

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// gridSyncs is an observer that counts the grid syncs a launch completes.
type gridSyncs struct{ n atomic.Int32 }

func (*gridSyncs) LaunchStart(*gpu.Grid)                     {}
func (*gridSyncs) LaunchEnd(*gpu.Grid, error)                {}
func (*gridSyncs) BlockStart(*gpu.Grid, int)                 {}
func (*gridSyncs) BlockEnd(*gpu.Grid, int)                   {}
func (*gridSyncs) Access(*gpu.Thread, *gpu.Access)           {}
func (*gridSyncs) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}

func (g *gridSyncs) Sync(_ *gpu.Thread, s gpu.Sync) {
	if s.Kind == gpu.SyncGrid {
		g.n.Add(1)
	}
}

// testDevice returns a default device that is closed when t ends.
func testDevice(t *testing.T) *gpu.Device {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, d.Close()) })
	return d
}

// launchEach returns a LaunchFunc that launches on d with cfg changed by
// tweak and counts its launches in n.
func launchEach(d *gpu.Device, n *int, tweak func(*gpu.LaunchConfig)) LaunchFunc {
	return func(ctx context.Context, cfg gpu.LaunchConfig, k gpu.Kernel) error {
		*n++
		tweak(&cfg)
		return d.Launch(ctx, cfg, k)
	}
}

// TestCoopBFSOneLaunchGridSyncPerLevel: the whole walk is one
// cooperative launch that completes one grid sync per non-empty level
// and stops at the first empty one, and its distances are the
// sequential BFS's.
func TestCoopBFSOneLaunchGridSyncPerLevel(t *testing.T) {
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		d := testDevice(t)
		b := newCoopBFS(d, Params{Seed: 1})
		obs, launches, coop := &gridSyncs{}, 0, false
		launch := launchEach(d, &launches, func(c *gpu.LaunchConfig) { c.Executor, c.Observer, coop = ex, obs, c.Cooperative })
		require.NoError(t, single(b.config(), b.kernel)(context.Background(), launch))
		require.NoError(t, b.check(), "%v", ex)
		levels := int(slices.Max(b.g.bfs(0))) + 1
		require.GreaterOrEqual(t, levels, 4, "the default graph's walk takes several levels")
		require.Equal(t, 1, launches, "%v: launches", ex)
		require.True(t, coop, "%v: the launch is cooperative", ex)
		require.EqualValues(t, levels, obs.n.Load(), "%v: grid syncs, one per non-empty level", ex)
	}
}

// TestCoopBFSNeedsCooperativeLaunch: launched without LaunchConfig.Cooperative,
// the first grid sync fails its thread with an error that says so,
// instead of hanging.
func TestCoopBFSNeedsCooperativeLaunch(t *testing.T) {
	d := testDevice(t)
	r, err := LibBFSCoop().Prepare(d, Params{Seed: 1})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 0
	err = r.Launch(ctx, launchEach(d, &n, func(c *gpu.LaunchConfig) { c.Cooperative = false }))
	require.ErrorContains(t, err, "not cooperative")
	require.ErrorContains(t, err, " of block (", "the error names the failing thread and its block")
}

// TestCoopBFSCheckFails: the output check compares every distance, so
// distances the kernel never computed fail it.
func TestCoopBFSCheckFails(t *testing.T) {
	d := testDevice(t)
	require.ErrorContains(t, newCoopBFS(d, Params{Seed: 1}).check(), "BFS distances[")
}

// TestCoopBFSPaperSize: at Paper size the graph has the 2^18
// vertices, the grid fits a default device's cooperative launch, and
// the walk is right.
func TestCoopBFSPaperSize(t *testing.T) {
	if testing.Short() {
		t.Skip("a walk over 2^18 vertices")
	}
	d := testDevice(t)
	b := newCoopBFS(d, Params{Size: Paper, Seed: 1})
	require.Equal(t, 1<<18, b.g.v)
	n := 0
	require.NoError(t, single(b.config(), b.kernel)(context.Background(), launchEach(d, &n, func(*gpu.LaunchConfig) {})))
	require.NoError(t, b.check())
}
