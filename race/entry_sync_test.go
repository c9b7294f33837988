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
// sync over it, grid.Sync over a global one read by the
// other block. The first synchronization orders the writes before every
// read, so no report is right, however many rounds pass: a detector that
// compared its synchronization counters modulo a narrow width would take
// the writes for unordered again after a multiple of that width. Each
// loop runs past the width its counter has in a packed record, so that
// the records go wide (see packed.go; Stats.Widened counts it); the
// __syncthreads loop does so under opt alone, since 2^16 rounds take
// seconds in every configuration. With -short (the -race pass) it checks
// opt alone, and the __syncthreads loop to 3*4096 rounds.
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
			width  int // the counter's packed range: rounds past it go wide
			kernel func(rounds int, global gpu.Buffer[int32], racy bool) gpu.Kernel
		}{
			{"syncthreads", 1<<16 + 10, 1 << 16, blockLoop},
			{"tile", 1<<10 + 10, 1 << 10, tileLoop},
			{"grid", 300, 1 << 6, gridLoop},
		} {
			if c.sync == "syncthreads" && (name != "opt" || testing.Short()) {
				c.rounds = 3*4096 + 10
			}
			t.Run(name+"/"+c.sync, func(t *testing.T) {
				d := newDevice(t)
				det := race.New(opts)
				global := gpu.Alloc[int32](d, "table", 128)
				cfg := gpu.LaunchConfig{Name: c.sync, Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Observer: det, Cooperative: true}
				require.NoError(t, d.Launch(context.Background(), cfg, c.kernel(c.rounds, global, false)))
				require.Empty(t, det.Reports())
				wide := c.rounds > c.width && !opts.Exact() // precise keeps no entries
				require.Equal(t, wide, det.Stats().Widened > 0, "entries widened after %d rounds", c.rounds)
				require.Zero(t, det.MetadataBytes(), "metadata left after the launch, wide arrays included")
			})
		}
	}
}

// TestRaceAfterLongSyncLoops: the same loops, run past the widths their
// counters have in a packed record, then two threads store to one word
// with no synchronization between: the race is reported, with the kind
// the two threads' distance gives. Counters cut to their packed width
// instead of going wide would take the stores for separated by a sync.
func TestRaceAfterLongSyncLoops(t *testing.T) {
	for _, c := range []struct {
		sync   string
		rounds int
		width  int
		kernel func(rounds int, global gpu.Buffer[int32], racy bool) gpu.Kernel
		want   race.Kind
	}{
		{"syncthreads", 1<<16 + 10, 1 << 16, blockLoop, race.MissingBlockFence},
		{"tile", 1<<10 + 10, 1 << 10, tileLoop, race.MissingBlockFence},
		{"grid", 300, 1 << 6, gridLoop, race.MissingDeviceFence},
	} {
		t.Run(c.sync, func(t *testing.T) {
			if testing.Short() && c.sync == "syncthreads" {
				c.rounds = 3*4096 + 10
			}
			d := newDevice(t)
			det := race.New(race.Options{Family: race.IGUARD}) // it checks the IGUARD family's wide records
			global := gpu.Alloc[int32](d, "table", 128)
			cfg := gpu.LaunchConfig{Name: c.sync, Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Observer: det, Cooperative: true}
			require.NoError(t, d.Launch(context.Background(), cfg, c.kernel(c.rounds, global, true)))
			reports := det.Reports()
			require.NotEmpty(t, reports)
			require.Equal(t, c.rounds > c.width, det.Stats().Widened > 0, "entries widened after %d rounds", c.rounds)
			for _, r := range reports {
				require.Equal(t, c.want, r.Kind, "%v", r)
			}
		})
	}
}

// blockLoop reads a shared table its block filled, a __syncthreads a
// round; if racy, lanes 0 of its two warps then store to one word with
// nothing between.
func blockLoop(rounds int, _ gpu.Buffer[int32], racy bool) gpu.Kernel {
	return sharedLoop(rounds, racy, func(th *gpu.Thread) func() { return th.SyncThreads })
}

// tileLoop is blockLoop with the sync of the block's one 64-thread tile.
func tileLoop(rounds int, _ gpu.Buffer[int32], racy bool) gpu.Kernel {
	return sharedLoop(rounds, racy, func(th *gpu.Thread) func() { return gpu.TiledPartition(th, 64).Sync })
}

// sharedLoop fills a 64-word shared table, one word a thread, syncs with
// the sync syncOf returns for the thread, then reads it rounds times, a
// sync a round; if racy, lanes 0 of the block's two warps then store to
// one word with nothing between.
func sharedLoop(rounds int, racy bool, syncOf func(*gpu.Thread) func()) gpu.Kernel {
	return func(th *gpu.Thread) {
		sync := syncOf(th)
		table := gpu.Shared[int32](th, "table", 64)
		table.Store(th, th.ThreadRank(), int32(th.ThreadRank()))
		sync()
		for i := range rounds {
			table.Load(th, (th.ThreadRank()+i)%64)
			sync()
		}
		if racy && th.ThreadRank()%32 == 0 {
			table.Store(th, 0, 1)
		}
	}
}

// gridLoop reads the other block's half of a global table, a grid.Sync a
// round; if racy, thread 0 of each block then stores to one word with
// nothing between.
func gridLoop(rounds int, table gpu.Buffer[int32], racy bool) gpu.Kernel {
	return func(th *gpu.Thread) {
		grid := gpu.ThisGrid(th)
		at := th.BlockRank()*64 + th.ThreadRank()
		table.Store(th, at, int32(at))
		grid.Sync()
		for i := range rounds {
			table.Load(th, (at+64+i)%128)
			grid.Sync()
		}
		if racy && th.ThreadRank() == 0 {
			table.Store(th, 0, 1)
		}
	}
}
