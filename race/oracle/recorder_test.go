package oracle_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/oracle"
	"github.com/warpguard/warpguard/scope"
)

// TestRecorderSeesEveryEvent: each thread's store, fence and the barrier
// they meet at, in the order they ran.
func TestRecorderSeesEveryEvent(t *testing.T) {
	rec := oracle.NewRecorder()
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	x := gpu.Alloc[uint32](d, "x", 2)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Deterministic: true}
	require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
		x.Store(th, th.ThreadRank(), 1)
		th.Fence(scope.Block)
		th.SyncThreads()
	}))
	trs := rec.Traces()
	require.Len(t, trs, 1)
	var whats []oracle.What
	for _, e := range trs[0].Events {
		whats = append(whats, e.What)
	}
	a, f, s := oracle.AccessEvent, oracle.FenceEvent, oracle.SyncEvent
	assert.Equal(t, []oracle.What{a, f, a, f, s}, whats)
	assert.Equal(t, 1, trs[0].Events[2].Access.Index)
	assert.True(t, trs[0].Events[4].Barrier())
}

// TestGridSync: a cooperative grid sync orders one block's write before
// another block's read; without it they race.
func TestGridSync(t *testing.T) {
	for _, sync := range []bool{true, false} {
		d := device(t)
		x := gpu.Alloc[uint32](d, "x", 1)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Cooperative: true}
		res, err := oracle.Launch(context.Background(), d, cfg, func(th *gpu.Thread) {
			if th.BlockRank() == 0 {
				x.Store(th, 0, 1)
			}
			if sync {
				gpu.ThisGrid(th).Sync()
			}
			if th.BlockRank() == 1 {
				x.Load(th, 0)
			}
		})
		require.NoError(t, err)
		assert.Equal(t, !sync, len(res.Races) == 1, "grid sync %v: %v", sync, res.Races)
	}
}

// TestRecorderTwoDevices: launches of two devices running at once, each
// the first launch of its device and so with the same Grid.ID, keep
// their own traces.
func TestRecorderTwoDevices(t *testing.T) {
	rec := oracle.NewRecorder()
	a := &gpu.Grid{ID: 2, Name: "on a"}
	b := &gpu.Grid{ID: 2, Name: "on b"}
	rec.LaunchStart(a)
	rec.LaunchStart(b)
	rec.LaunchEnd(a, nil)
	rec.LaunchEnd(b, nil)
	trs := rec.Traces()
	require.Len(t, trs, 2)
	assert.Equal(t, "on a", trs[0].Grid.Name)
	assert.Equal(t, "on b", trs[1].Grid.Name)
}

// lockedCount is a correct device-scope spin lock: each block's thread
// takes the lock with a CAS, fences, increments a plain counter, fences
// and releases with an exchange.
func lockedCount(lock, n gpu.Buffer[uint32]) gpu.Kernel {
	return func(th *gpu.Thread) {
		for lock.AtomicCAS(th, 0, 0, 1, scope.Device) != 0 {
		}
		th.ThreadFence()
		n.Store(th, 0, n.Load(th, 0)+1)
		th.ThreadFence()
		lock.AtomicExch(th, 0, 0, scope.Device)
	}
}

// TestRecorderParallelLock: recorded under the parallel executors, a
// correct lock's trace has each element's writes and strong reads in
// memory order, so the oracle finds no race in any of many launches;
// without the lock it finds the counter's race.
func TestRecorderParallelLock(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	lock, n := gpu.Alloc[uint32](d, "lock", 1), gpu.Alloc[uint32](d, "n", 1)
	launches := 200
	if testing.Short() {
		launches = 40
	}
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		rec := oracle.NewRecorder()
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 1}, Executor: ex, Observer: rec}
		for range launches {
			require.NoError(t, d.Launch(context.Background(), cfg, lockedCount(lock, n)))
		}
		for i, tr := range rec.Traces() {
			require.Empty(t, oracle.Analyze(tr).Races, "%v launch %d", ex, i)
		}
		require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) { n.Store(th, 0, n.Load(th, 0)+1) }))
		trs := rec.Traces()
		require.NotEmpty(t, oracle.Analyze(trs[len(trs)-1]).Races)
	}
}
