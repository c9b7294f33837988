package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// TestLongSyncLoops: a table filled once, then read in a loop with a
// synchronization per round, for thousands of rounds, as iterative
// kernels run: __syncthreads over a shared table, a 64-thread tile's
// sync over its half of it, grid.Sync over a global one read by the
// other block. The first synchronization orders the writes before every
// read, so no report is right, however many rounds pass: a detector that
// compared its synchronization counters modulo a narrow width would take
// the writes for unordered again after a multiple of that width.
// With -short (the -race pass) it checks opt alone.
func TestLongSyncLoops(t *testing.T) {
	configs := []string{"opt", "plain", "central", "opt:full", "precise"}
	if testing.Short() {
		configs = configs[:1]
	}
	for _, name := range configs {
		opts, err := race.Config(name)
		require.NoError(t, err)
		for _, c := range []struct {
			sync   string
			rounds int
			kernel func(rounds int, global gpu.Buffer[int32]) gpu.Kernel
		}{
			{"syncthreads", 3*4096 + 10, blockLoop},
			{"tile", 200, tileLoop},
			{"grid", 300, gridLoop},
		} {
			t.Run(name+"/"+c.sync, func(t *testing.T) {
				d := newDevice(t)
				det := race.New(opts)
				global := gpu.Alloc[int32](d, "table", 128)
				cfg := gpu.Config{Name: c.sync, Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Observer: det, Cooperative: true}
				require.NoError(t, d.Launch(context.Background(), cfg, c.kernel(c.rounds, global)))
				require.Empty(t, det.Reports())
			})
		}
	}
}

// blockLoop reads a shared table its block filled, a __syncthreads a round.
func blockLoop(rounds int, _ gpu.Buffer[int32]) gpu.Kernel {
	return func(th *gpu.Thread) {
		table := gpu.Shared[int32](th, "table", 64)
		table.Store(th, th.Rank(), int32(th.Rank()))
		th.SyncThreads()
		for i := range rounds {
			table.Load(th, (th.Rank()+i)%64)
			th.SyncThreads()
		}
	}
}

// tileLoop reads the part of a shared table its 64-thread tile filled, a
// tile sync a round.
func tileLoop(rounds int, _ gpu.Buffer[int32]) gpu.Kernel {
	return func(th *gpu.Thread) {
		tile := gpu.TiledPartition(th, 64)
		table := gpu.Shared[int32](th, "table", 64)
		table.Store(th, th.Rank(), int32(th.Rank()))
		tile.Sync()
		for i := range rounds {
			table.Load(th, (tile.ThreadRank()+i)%64)
			tile.Sync()
		}
	}
}

// gridLoop reads the other block's half of a global table, a grid.Sync a
// round.
func gridLoop(rounds int, table gpu.Buffer[int32]) gpu.Kernel {
	return func(th *gpu.Thread) {
		grid := gpu.ThisGrid(th)
		at := th.Block()*64 + th.Rank()
		table.Store(th, at, int32(at))
		grid.Sync()
		for i := range rounds {
			table.Load(th, (at+64+i)%128)
			grid.Sync()
		}
	}
}
