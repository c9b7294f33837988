package gpu_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

func TestSyncThreadsVariants(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const bs = 100
		out := gpu.Alloc[int32](d, "out", 2*bs*4)
		require.NoError(t, launch1D(d, ex, 2, bs, func(t *gpu.Thread) {
			r, g := t.ThreadRank(), t.GlobalID()
			out.Store(t, 4*g, int32(t.SyncThreadsCount(r%3 == 0)))
			out.Store(t, 4*g+1, int32(btoi(t.SyncThreadsAnd(r >= 0))))
			out.Store(t, 4*g+2, int32(btoi(t.SyncThreadsAnd(r != 57))))
			out.Store(t, 4*g+3, int32(btoi(t.SyncThreadsOr(r == 99 && t.BlockRank() == 1))))
		}))
		h := out.Host()
		for g := range 2 * bs {
			want := []int32{34, 1, 0, int32(g / bs)}
			require.Equal(t, want, h[4*g:4*g+4], "thread %d", g)
		}
	})
}

// TestSyncThreadsOrders checks the barrier's guarantee: writes before it are
// seen by every thread of the block after it, over many rounds.
func TestSyncThreadsOrders(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const bs, rounds = 256, 20
		bad := gpu.Alloc[int32](d, "bad", 1)
		require.NoError(t, launch1D(d, ex, 4, bs, func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", bs)
			r := t.ThreadRank()
			for k := range rounds {
				s.Store(t, r, int32(k*bs+r))
				t.SyncThreads()
				if s.Load(t, (r+k+1)%bs) != int32(k*bs+(r+k+1)%bs) {
					bad.Store(t, 0, 1)
				}
				t.SyncThreads()
			}
		}))
		require.Zero(t, bad.Host()[0])
	})
}
