package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// blockCounters launches blocks of 64 threads that each add to their
// block's counter in global memory with block-scope atomics, rounds times,
// under det; with stray, block 1's thread 0 also adds to block 0's
// counter once more, which no block-scope atomic of block 0 orders.
func blockCounters(t *testing.T, det *race.Detector, rounds int, stray bool) {
	t.Helper()
	d := newDevice(t)
	counts := gpu.Alloc[int32](d, "counts", 2)
	cfg := gpu.LaunchConfig{Name: "block-counters", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Observer: det}
	require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
		for range rounds {
			counts.AtomicAdd(th, th.BlockRank(), 1, scope.Block)
		}
		if stray && th.BlockRank() == 1 && th.ThreadRank() == 0 {
			counts.AtomicAdd(th, 0, 1, scope.Block)
		}
	}))
}

// TestPreciseBlockScopeAtomicsSkipTheirBlock: block-scope atomics of one
// block's threads on a word of global memory are morally strong pairs,
// so each checks none of the others one by one: the compared pairs stay
// below one per access however many of the block's threads reached the
// word (a list of their records would be walked by each).
func TestPreciseBlockScopeAtomicsSkipTheirBlock(t *testing.T) {
	t.Parallel()
	det := race.New(race.Options{})
	blockCounters(t, det, 8, false)
	require.Empty(t, det.Reports())
	s := det.Stats()
	assert.Less(t, s.Pairs, s.Accesses, "compared pairs (%d) grow with the block's threads, over %d accesses", s.Pairs, s.Accesses)
}

// TestPreciseBlockScopeAtomicOfAnotherBlockRaces: a block-scope atomic of
// another block does not skip the block's records: it walks them and
// finds the race, whichever block reached the word first.
func TestPreciseBlockScopeAtomicOfAnotherBlockRaces(t *testing.T) {
	t.Parallel()
	for range 5 {
		det := race.New(race.Options{})
		blockCounters(t, det, 2, true)
		rs := det.Reports()
		require.Len(t, rs, 1)
		assert.Equal(t, race.ScopedAtomic, rs[0].Kind)
	}
}

// TestPreciseVolatileReadComparesOnlyVolatileLanes: a volatile read of a
// word a warp's lanes reach with device-scope atomics is a morally strong
// pair with each of them (the warp-synchronous rule concerns volatile
// pairs only), so it compares none of them one by one, and a volatile
// write of another lane with no __syncwarp is still found.
func TestPreciseVolatileReadComparesOnlyVolatileLanes(t *testing.T) {
	t.Parallel()
	for _, stray := range []bool{false, true} {
		det := race.New(race.Options{})
		d := newDevice(t)
		word := gpu.Alloc[int32](d, "word", 1)
		cfg := gpu.LaunchConfig{Name: "lanes", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Observer: det, Deterministic: true}
		require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
			for range 8 {
				word.AtomicAdd(th, 0, 1, scope.Device)
				_ = word.LoadVolatile(th, 0)
			}
			if stray && th.ThreadRank() == 31 {
				word.StoreVolatile(th, 0, 7)
			}
		}))
		if stray {
			rs := det.Reports()
			require.Len(t, rs, 1)
			assert.Equal(t, race.MissingSyncwarp, rs[0].Kind)
			continue
		}
		require.Empty(t, det.Reports())
		s := det.Stats()
		assert.Less(t, s.Pairs, s.Accesses, "compared pairs (%d) grow with the warp's lanes, over %d accesses", s.Pairs, s.Accesses)
	}
}
