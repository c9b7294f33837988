package oracle_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// warpReduce is the pre-Volta warp-synchronous reduction: each of a
// block's threads adds its partner's volatile shared slot to its own,
// halving the distance, with a __syncwarp between steps when sync is set.
func warpReduce(sync bool) gpu.Kernel {
	return func(th *gpu.Thread) {
		s := gpu.Shared[uint32](th, "s", 32)
		r := th.ThreadRank()
		s.StoreVolatile(th, r, uint32(r))
		if sync {
			th.SyncWarp(gpu.FullMask)
		}
		for d := 16; d > 0; d /= 2 {
			if r < d {
				s.StoreVolatile(th, r, s.LoadVolatile(th, r)+s.LoadVolatile(th, r+d))
			}
			if sync {
				th.SyncWarp(gpu.FullMask)
			}
		}
	}
}

// TestWarpSynchronousVolatile: lanes of one warp reading each other's
// volatile slots with no __syncwarp race (missing-syncwarp), although
// PTX calls volatile pairs morally strong; with __syncwarp between steps
// the reduction is clean.
func TestWarpSynchronousVolatile(t *testing.T) {
	d := device(t)
	got, races := judge(t, d, 1, 32, warpReduce(false))
	require.NotEmpty(t, got)
	for _, r := range races {
		assert.Equal(t, kind.MissingSyncwarp, r.Kind, r.String())
	}
	got, _ = judge(t, d, 1, 32, warpReduce(true))
	assert.Empty(t, got)
}

// TestVolatileBetweenWarpsStaysStrong: the same volatile pair between
// lanes of two warps, or lanes of one warp using atomics, is morally
// strong: no race.
func TestVolatileBetweenWarpsStaysStrong(t *testing.T) {
	d := device(t)
	x := gpu.Alloc[uint32](d, "x", 1)
	got, _ := judge(t, d, 1, 64, func(th *gpu.Thread) {
		switch th.ThreadRank() {
		case 0:
			x.StoreVolatile(th, 0, 1)
		case 32:
			x.LoadVolatile(th, 0)
		}
	})
	assert.Empty(t, got, "volatile between warps")
	got, _ = judge(t, d, 1, 32, func(th *gpu.Thread) {
		x.AtomicAdd(th, 0, 1, scope.Block)
		x.AtomicLoad(th, 0, scope.Block)
	})
	assert.Empty(t, got, "atomics between lanes")
	got, _ = judge(t, d, 1, 32, func(th *gpu.Thread) {
		switch th.ThreadRank() {
		case 0:
			x.AtomicStore(th, 0, 1, scope.Block)
		case 1:
			x.LoadVolatile(th, 0)
		}
	})
	assert.Empty(t, got, "an atomic and a volatile between lanes")
}
