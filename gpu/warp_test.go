package gpu_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// syncRecorder is an Observer that keeps every Sync.
type syncRecorder struct {
	mu    sync.Mutex
	syncs []gpu.Sync
}

func (r *syncRecorder) LaunchStart(*gpu.Grid)                     {}
func (r *syncRecorder) LaunchEnd(*gpu.Grid, error)                {}
func (r *syncRecorder) BlockStart(*gpu.Grid, int)                 {}
func (r *syncRecorder) BlockEnd(*gpu.Grid, int)                   {}
func (r *syncRecorder) Access(*gpu.Thread, *gpu.Access)           {}
func (r *syncRecorder) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (r *syncRecorder) Sync(_ *gpu.Thread, s gpu.Sync) {
	r.mu.Lock()
	r.syncs = append(r.syncs, s)
	r.mu.Unlock()
}
func (r *syncRecorder) sorted() []gpu.Sync                  { return slices.SortedFunc(slices.Values(r.syncs), cmpSync) }
func cmpSync(a, b gpu.Sync) int                             { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }
func (r *syncRecorder) count(k gpu.SyncKind, op string) int { return countSyncs(r.syncs, k, op) }

func countSyncs(ss []gpu.Sync, k gpu.SyncKind, op string) int {
	n := 0
	for _, s := range ss {
		if s.Kind == k && s.Op == op {
			n++
		}
	}
	return n
}

// TestSyncWarpOrders checks SyncWarp's guarantee: a lane's write before it
// is seen by the other lanes of the mask after it, for half-warp masks.
func TestSyncWarpOrders(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		const rounds = 20
		bad := gpu.Alloc[int32](d, "bad", 1)
		rec := &syncRecorder{}
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Executor: ex, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 64)
			l, r := t.Lane(), t.ThreadRank()
			half := uint64(0xffff) << (l &^ 15)
			for k := range rounds {
				s.Store(t, r, int32(k*64+r))
				t.SyncWarp(half)
				peer := r&^15 | (r+k+1)&15
				if s.Load(t, peer) != int32(k*64+peer) {
					bad.Store(t, 0, 1)
				}
				t.SyncWarp(half)
			}
		}))
		require.Zero(t, bad.Host()[0])
		// 2 blocks x 2 warps x 2 halves x 2 syncs per round.
		require.Equal(t, 2*2*2*2*rounds, rec.count(gpu.SyncWarp, "syncwarp"))
		for _, s := range rec.syncs {
			require.Contains(t, []uint64{0xffff, 0xffff0000}, s.Mask)
			require.Equal(t, s.Block*2+0, s.Warp&^1, "global warp id")
		}
	})
}

func TestSyncWarpPartialLastWarp(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		rec := &syncRecorder{}
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 40}, Executor: ex, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) { t.SyncWarp(gpu.FullMask) }))
		require.Equal(t, []gpu.Sync{
			{Kind: gpu.SyncWarp, Block: 0, Warp: 0, Mask: 0xffffffff, Op: "syncwarp"},
			{Kind: gpu.SyncWarp, Block: 0, Warp: 1, Mask: 0xff, Op: "syncwarp"},
		}, rec.sorted())
	})
}

func TestCollectiveOpsReported(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	rec := &syncRecorder{}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Observer: rec}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		m := uint64(0x0f)
		if t.Lane() >= 4 {
			return
		}
		gpu.ShflSync(t, m, int32(1), 0, 32)
		gpu.ShflUpSync(t, m, int32(1), 1, 32)
		gpu.ShflDownSync(t, m, int32(1), 1, 32)
		gpu.ShflXorSync(t, m, int32(1), 1, 32)
		gpu.BallotSync(t, m, true)
		gpu.AnySync(t, m, true)
		gpu.AllSync(t, m, true)
		gpu.MatchAnySync(t, m, int32(1))
		gpu.MatchAllSync(t, m, int32(1))
		gpu.ReduceAddSync(t, m, int32(1))
	}))
	var ops []string
	for _, s := range rec.syncs {
		require.Equal(t, uint64(0x0f), s.Mask)
		ops = append(ops, s.Op)
	}
	require.Equal(t, []string{"shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "match_any", "match_all", "reduce_add"}, ops)
}

func TestWarpMisuse(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		misuse := line() + 3
		err := launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			if t.Lane() == 3 {
				t.SyncWarp(0x1) // does not name lane 3
				return
			}
			if t.Lane() == 0 {
				t.SyncWarp(0x1)
			}
		})
		require.ErrorContains(t, err, fmt.Sprintf("thread (3,0,0) of block (0,0,0) (global thread 3) at %s: syncwarp with mask 0x1, which does not name the calling lane", siteOf(int64(misuse))))
		// Lanes 0 and 1 name each other with different masks: they can never meet.
		err = launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
			switch t.Lane() {
			case 0:
				t.SyncWarp(0x3)
			case 1:
				t.SyncWarp(0x7)
			case 2:
				t.SyncWarp(0x7)
			}
		})
		var de *gpu.DivergenceError
		require.ErrorAs(t, err, &de)
		require.Contains(t, err.Error(), "syncwarp(mask 0x")
		require.NotContains(t, err.Error(), "stopped:", "a mismatch is found when it happens, not as a deadlock")
		// Lanes that name each other at different collectives.
		err = launch1D(d, ex, 1, 2, func(t *gpu.Thread) {
			if t.Lane() == 0 {
				gpu.BallotSync(t, 0x3, true)
			} else {
				gpu.AnySync(t, 0x3, true)
			}
		})
		require.ErrorAs(t, err, &de)
		require.ErrorContains(t, err, "warp_test.go")
	})
}

// TestActiveMaskConverged checks the emulator's definition of convergence:
// the lanes that reach the same ActiveMask call together.
func TestActiveMaskConverged(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		got := make([]uint64, 40)
		require.NoError(t, launch1D(d, ex, 1, 40, func(t *gpu.Thread) {
			l := t.ThreadRank()
			switch {
			case l == 5:
				return // exited lanes are not active
			case l%2 == 0:
				got[l] = gpu.ActiveMask(t)
			default:
				got[l] = gpu.ActiveMask(t)
			}
		}))
		for l := range 40 {
			want := uint64(0x55555555)
			if l >= 32 {
				want = 0x55
			}
			switch {
			case l == 5:
				want = 0
			case l%2 == 1 && l < 32:
				want = want << 1 &^ (1 << 5)
			case l%2 == 1:
				want <<= 1
			}
			require.Equal(t, want, got[l], "lane %d", l)
		}
	})
}

// TestShuffleReduction is the classic warp reduction, summing a block's
// values with shfl_down and broadcasting with shfl.
func TestShuffleReduction(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		out := gpu.Alloc[float64](d, "out", 256)
		require.NoError(t, launch1D(d, ex, 4, 64, func(t *gpu.Thread) {
			v := float64(t.GlobalID())
			for off := 16; off > 0; off /= 2 {
				v += gpu.ShflDownSync(t, gpu.FullMask, v, off, 32)
			}
			out.Store(t, t.GlobalID(), gpu.ShflSync(t, gpu.FullMask, v, 0, 32))
		}))
		for g, v := range out.Host() {
			base := g &^ 31
			require.Equal(t, float64(32*base+31*32/2), v, "thread %d", g)
		}
	})
}

// TestCollectiveHoldsParticipants checks the Observer contract for warp
// collectives: Sync comes after every participant's accesses before the
// collective and before any of their accesses after it.
func TestCollectiveHoldsParticipants(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 64)
		rec := &recorder{}
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: rec}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.Store(t, t.Lane(), 1)
			gpu.BallotSync(t, gpu.FullMask, true)
			x.Store(t, 32+t.Lane(), 2)
		}))
		at := slices.IndexFunc(rec.events, func(e string) bool { return strings.HasPrefix(e, "sync syncwarp") })
		require.Positive(t, at)
		for i, e := range rec.events {
			switch {
			case strings.Contains(e, "store x[") && strings.Contains(e, "arg=1"):
				require.Less(t, i, at, e)
			case strings.Contains(e, "arg=2"):
				require.Greater(t, i, at, e)
			}
		}
	})
}

// TestConvergenceAllocatesNothingPerPoint: a block of eight warps passing
// 4 and 68 convergence points (ActiveMask, CoalescedThreads) allocates as
// much: the lanes a point releases are gathered on the stack, where each
// point of each warp allocated a list of them.
func TestConvergenceAllocatesNothingPerPoint(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	d := newDevice(t)
	out := gpu.Alloc[int32](d, "out", 256)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 256}}
	allocs := func(points int) float64 {
		k := func(t *gpu.Thread) {
			var m uint64
			for range points / 2 {
				m += gpu.ActiveMask(t)
				m += uint64(gpu.CoalescedThreads(t).Size())
			}
			out.Store(t, t.ThreadRank(), int32(m))
		}
		return testing.AllocsPerRun(10, func() { require.NoError(t, d.Launch(context.Background(), cfg, k)) })
	}
	few, many := allocs(4), allocs(68)
	require.LessOrEqual(t, many, few+1, "64 more convergence points in each of 8 warps allocated %.0f more objects", many-few)
}

// TestWarpMismatchNamesLines: lanes that name each other at different
// collectives can never meet, which ends the launch under every
// divergence mode, DivergenceAllow included; the error names the line of
// each collective, where it once printed "at ?" under DivergenceAllow.
func TestWarpMismatchNamesLines(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		ballot := line() + 5
		for _, mode := range []gpu.DivergenceMode{gpu.DivergenceFail, gpu.DivergenceWarn, gpu.DivergenceAllow} {
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Executor: ex, Divergence: mode}
			err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
				if t.Lane() == 0 {
					gpu.BallotSync(t, 0x3, true)
				} else {
					gpu.AnySync(t, 0x3, true)
				}
			})
			var de *gpu.DivergenceError
			require.ErrorAs(t, err, &de, mode)
			require.ErrorContains(t, err, siteOf(int64(ballot)), mode)
			require.ErrorContains(t, err, siteOf(int64(ballot+2)), mode)
			require.NotContains(t, err.Error(), " at ?", mode)
		}
	})
}
