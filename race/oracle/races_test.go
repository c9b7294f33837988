package oracle_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/oracle"
	"github.com/warpguard/warpguard/scope"
)

// judge runs k with grid blocks of block threads and returns the racing
// granules, as "name[index]" strings, and the races.
func judge(t *testing.T, d *gpu.Device, blocks, block int, k gpu.Kernel) ([]string, []oracle.Race) {
	t.Helper()
	cfg := gpu.LaunchConfig{Name: t.Name(), Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: block}}
	res, err := oracle.Launch(context.Background(), d, cfg, k)
	require.NoError(t, err)
	var names []string
	for _, g := range res.Granules() {
		names = append(names, fmt.Sprintf("%s[%d]", g.Mem.Name, g.Index))
	}
	return names, res.Races
}

// device returns a default device, failing t if it cannot be made.
func device(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	return d
}

// spin waits until f[i] holds v, reading it with load.
func spin(load func() uint32, v uint32) {
	for load() != v {
	}
}

// TestLostReader: a plain read, then the same thread's atomic, then other
// threads' atomics on the same word: the read races with the later atomics.
func TestLostReader(t *testing.T) {
	d := device(t)
	a := gpu.Alloc[uint32](d, "a", 1)
	got, races := judge(t, d, 1, 3, func(th *gpu.Thread) {
		if th.ThreadRank() == 0 {
			a.Load(th, 0)
		}
		a.AtomicAdd(th, 0, 1, scope.Device)
	})
	assert.Equal(t, []string{"a[0]"}, got)
	require.Len(t, races, 1)
	assert.Equal(t, kind.MissingSyncwarp, races[0].Kind) // threads 0-2 share warp 0
}

// chain runs the three-hop message chain: block 0 writes x and hands on
// through f1 to block 1, which fences at middle scope and hands on through
// f2 to block 2, which reads x. The fences are fence.acq_rel, so only the
// flags carry the order (fence.sc of blocks 0 and 2 would order them by
// the fence.sc order alone).
func chain(t *testing.T, middle scope.Scope) []string {
	d := device(t)
	x, f := gpu.Alloc[uint32](d, "x", 1), gpu.Alloc[uint32](d, "f", 2)
	got, _ := judge(t, d, 3, 1, func(th *gpu.Thread) {
		switch th.BlockRank() {
		case 0:
			x.Store(th, 0, 1)
			th.FenceAcqRel(scope.Device)
			f.StoreVolatile(th, 0, 1)
		case 1:
			spin(func() uint32 { return f.LoadVolatile(th, 0) }, 1)
			th.FenceAcqRel(middle)
			f.StoreVolatile(th, 1, 1)
		case 2:
			spin(func() uint32 { return f.LoadVolatile(th, 1) }, 1)
			th.FenceAcqRel(scope.Device)
			x.Load(th, 0)
		}
	})
	return got
}

// TestChainBlockScopeMiddleHop: a block-scope fence in the middle hop,
// between blocks, breaks the chain: x races.
func TestChainBlockScopeMiddleHop(t *testing.T) {
	assert.Equal(t, []string{"x[0]"}, chain(t, scope.Block))
}

// TestChainDeviceScopeMiddleHop: device-scope fences at every hop carry
// the write to block 2.
func TestChainDeviceScopeMiddleHop(t *testing.T) {
	assert.Empty(t, chain(t, scope.Device))
}

// messagePass writes x, fences at device scope and raises a volatile flag
// in block 0; block 1 polls the flag, calls acquire, and reads x.
func messagePass(t *testing.T, poll func(f gpu.Buffer[uint32], th *gpu.Thread) uint32, acquire func(*gpu.Thread)) []string {
	d := device(t)
	x, f := gpu.Alloc[uint32](d, "x", 1), gpu.Alloc[uint32](d, "f", 1)
	got, _ := judge(t, d, 2, 1, func(th *gpu.Thread) {
		if th.BlockRank() == 0 {
			x.Store(th, 0, 1)
			th.Fence(scope.Device)
			f.StoreVolatile(th, 0, 1)
			return
		}
		spin(func() uint32 { return poll(f, th) }, 1)
		acquire(th)
		x.Load(th, 0)
	})
	return got
}

// volatilePoll reads the flag with a volatile load.
func volatilePoll(f gpu.Buffer[uint32], th *gpu.Thread) uint32 { return f.LoadVolatile(th, 0) }

// TestMissingAcquire: the writer's fence alone does not order the
// reader's load of x.
func TestMissingAcquire(t *testing.T) {
	assert.Equal(t, []string{"x[0]"}, messagePass(t, volatilePoll, func(*gpu.Thread) {}))
}

// TestVolatileFlagWithDeviceFences: a device fence after the flag read
// completes the acquire pattern.
func TestVolatileFlagWithDeviceFences(t *testing.T) {
	assert.Empty(t, messagePass(t, volatilePoll, func(th *gpu.Thread) { th.Fence(scope.Device) }))
}

// TestAcquireLoad: an acquire load of the flag is the acquire pattern by
// itself.
func TestAcquireLoad(t *testing.T) {
	acq := func(f gpu.Buffer[uint32], th *gpu.Thread) uint32 { return f.LoadAcquire(th, 0, scope.Device) }
	assert.Empty(t, messagePass(t, acq, func(*gpu.Thread) {}))
}

// TestBlockScopeFenceAcrossBlocks: a block-scope fence does not cover
// the writer in another block.
func TestBlockScopeFenceAcrossBlocks(t *testing.T) {
	assert.Equal(t, []string{"x[0]"}, messagePass(t, volatilePoll, func(th *gpu.Thread) { th.Fence(scope.Block) }))
}

// TestCumulativityThroughBarrier: block 0's two threads write, meet at
// __syncthreads, and only the leader fences and raises the flag; block 1
// acquires and reads both writes. The barrier makes the fence cumulative.
func TestCumulativityThroughBarrier(t *testing.T) {
	d := device(t)
	x, f := gpu.Alloc[uint32](d, "x", 2), gpu.Alloc[uint32](d, "f", 1)
	got, _ := judge(t, d, 2, 2, func(th *gpu.Thread) {
		if th.BlockRank() == 0 {
			x.Store(th, th.ThreadRank(), 1)
			th.SyncThreads()
			if th.ThreadRank() == 0 {
				th.Fence(scope.Device)
				f.StoreVolatile(th, 0, 1)
			}
			return
		}
		spin(func() uint32 { return f.LoadAcquire(th, 0, scope.Device) }, 1)
		x.Load(th, 1-th.ThreadRank())
	})
	assert.Empty(t, got)
}

// TestWarpIntrinsicIsNoBarrier: a ballot between a lane's write and
// another lane's read orders nothing; __syncwarp does.
func TestWarpIntrinsicIsNoBarrier(t *testing.T) {
	for _, tc := range []struct {
		name string
		sync func(*gpu.Thread)
		want []string
	}{
		{"ballot", func(th *gpu.Thread) { gpu.BallotSync(th, 3, true) }, []string{"s[0]"}},
		{"syncwarp", func(th *gpu.Thread) { th.SyncWarp(3) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := device(t)
			got, _ := judge(t, d, 1, 2, func(th *gpu.Thread) {
				s := gpu.Shared[uint32](th, "s", 1)
				if th.ThreadRank() == 0 {
					s.Store(th, 0, 1)
				}
				tc.sync(th)
				if th.ThreadRank() == 1 {
					s.Load(th, 0)
				}
			})
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestScopedAtomic: block-scope atomics from two blocks race with each
// other; device-scope ones do not.
func TestScopedAtomic(t *testing.T) {
	for s, want := range map[scope.Scope][]string{scope.Block: {"a[0]"}, scope.Device: nil} {
		d := device(t)
		a := gpu.Alloc[uint32](d, "a", 1)
		got, races := judge(t, d, 2, 1, func(th *gpu.Thread) { a.AtomicAdd(th, 0, 1, s) })
		assert.Equal(t, want, got, "scope %v", s)
		if len(races) > 0 {
			assert.Equal(t, kind.ScopedAtomic, races[0].Kind)
		}
	}
}

// releaseSequence: block 0 writes x and release-stores f = 1; block 1 waits
// for 1 and moves f to 2 with middle; block 2 acquires f == 2 and reads x.
func releaseSequence(t *testing.T, middle func(f gpu.Buffer[uint32], th *gpu.Thread)) []string {
	d := device(t)
	x, f := gpu.Alloc[uint32](d, "x", 1), gpu.Alloc[uint32](d, "f", 1)
	got, _ := judge(t, d, 3, 1, func(th *gpu.Thread) {
		switch th.BlockRank() {
		case 0:
			x.Store(th, 0, 1)
			f.StoreRelease(th, 0, 1, scope.Device)
		case 1:
			spin(func() uint32 { return f.AtomicLoad(th, 0, scope.Device) }, 1)
			middle(f, th)
		case 2:
			spin(func() uint32 { return f.LoadAcquire(th, 0, scope.Device) }, 2)
			x.Load(th, 0)
		}
	})
	return got
}

// TestReleaseSequenceThroughRMW: a read-modify-write of the flag continues
// the release sequence, so the acquire of its value orders x.
func TestReleaseSequenceThroughRMW(t *testing.T) {
	assert.Empty(t, releaseSequence(t, func(f gpu.Buffer[uint32], th *gpu.Thread) { f.AtomicAdd(th, 0, 1, scope.Device) }))
}

// TestReleaseSequenceBrokenByStore: a plain atomic store of the flag ends
// the release sequence, so x races.
func TestReleaseSequenceBrokenByStore(t *testing.T) {
	got := releaseSequence(t, func(f gpu.Buffer[uint32], th *gpu.Thread) { f.AtomicStore(th, 0, 2, scope.Device) })
	assert.Equal(t, []string{"x[0]"}, got)
}

// TestFencesAloneOrderNothing: two fence.acq_rel with no flag read
// between them order nothing.
func TestFencesAloneOrderNothing(t *testing.T) {
	d := device(t)
	x := gpu.Alloc[uint32](d, "x", 1)
	got, _ := judge(t, d, 2, 1, func(th *gpu.Thread) {
		th.FenceAcqRel(scope.Device)
		x.Store(th, 0, uint32(th.BlockRank()))
		th.FenceAcqRel(scope.Device)
	})
	assert.Equal(t, []string{"x[0]"}, got)
}

// TestSCFencesOrderByTheirOrder: the same with fence.sc (__threadfence)
// is ordered: the first thread's fence after its store precedes the
// second thread's fence before its store in the fence.sc order, so the
// first store happens before the second. Fence.sc of block scope in two
// blocks are not morally strong and order nothing.
func TestSCFencesOrderByTheirOrder(t *testing.T) {
	for s, want := range map[scope.Scope][]string{scope.Device: nil, scope.Block: {"x[0]"}} {
		d := device(t)
		x := gpu.Alloc[uint32](d, "x", 1)
		got, _ := judge(t, d, 2, 1, func(th *gpu.Thread) {
			th.Fence(s)
			x.Store(th, 0, uint32(th.BlockRank()))
			th.Fence(s)
		})
		assert.Equal(t, want, got, "fences of %v scope", s)
	}
}

// TestTileSync: a tile's sync orders its own ranks only.
func TestTileSync(t *testing.T) {
	for size, want := range map[int][]string{64: nil, 32: {"s[0]"}, 8: {"s[0]"}} {
		d := device(t)
		got, _ := judge(t, d, 1, 64, func(th *gpu.Thread) {
			s := gpu.Shared[uint32](th, "s", 1)
			if th.ThreadRank() == 0 {
				s.Store(th, 0, 1)
			}
			gpu.TiledPartition(th, size).Sync()
			if th.ThreadRank() == 40 {
				s.Load(th, 0)
			}
		})
		assert.Equal(t, want, got, "tile of %d", size)
	}
}

// TestFailedCASOnlyReads: a CAS that fails writes nothing, so it does not
// conflict with another thread's read; one that succeeds does.
func TestFailedCASOnlyReads(t *testing.T) {
	for cmp, want := range map[uint32][]string{7: nil, 0: {"x[0]"}} {
		d := device(t)
		x := gpu.Alloc[uint32](d, "x", 1)
		got, _ := judge(t, d, 2, 1, func(th *gpu.Thread) {
			if th.BlockRank() == 0 {
				x.Load(th, 0)
				return
			}
			x.AtomicCAS(th, 0, cmp, 1, scope.Device)
		})
		assert.Equal(t, want, got, "CAS comparing with %d", cmp)
	}
}
