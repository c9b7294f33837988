package iguard

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

func TestWarpClockOrdersOnlyParticipants(t *testing.T) {
	t.Parallel()
	var w warp
	w.init(32, 0)
	e0 := w.epoch(0) // lane 0 accesses at this epoch
	w.sync(0x0000ffff)
	require.True(t, w.after(1, 0, e0), "lane 1 met lane 0 after the access")
	require.False(t, w.after(16, 0, e0), "lane 16 was not in the mask")
	w.sync(0xffff0000)
	require.False(t, w.after(17, 0, e0), "the other half's sync says nothing about lane 0")
	w.sync(1<<1 | 1<<17)
	require.True(t, w.after(17, 0, e0), "transitively: lane 0 met 1, then 1 met 17")
	require.False(t, w.after(18, 0, e0))
	e1 := w.epoch(0)
	require.False(t, w.after(1, 0, e1), "a later access of lane 0 is not ordered yet")
	w.sync(1) // one lane alone orders nothing
	require.False(t, w.after(1, 0, e1))
}

func TestWarpClockIgnoresLanesPastTheWarp(t *testing.T) {
	t.Parallel()
	var w warp
	w.init(8, 0)
	e := w.epoch(7)
	w.sync(^uint64(0))
	require.True(t, w.after(0, 7, e))
}

// TestWarpResetZeroesSyncedRows: a reset zeroes exactly the rows
// collectives wrote, so a reused warp starts with every clock at zero, a
// lane alone in its collective and a 64-lane warp included.
func TestWarpResetZeroesSyncedRows(t *testing.T) {
	t.Parallel()
	for _, n := range []int{32, 64} {
		var w warp
		w.init(n, 0)
		w.sync(0x00ff00ff)
		w.sync(1 << 30)
		w.sync(1<<(n-1) | 1)
		require.NotZero(t, w.epoch(n-1))
		w.reset()
		require.Equal(t, make([]uint32, n*n), w.vc, "%d lanes", n)
		require.Zero(t, w.dirty.Load())
	}
}

func TestLockSetIntersect(t *testing.T) {
	t.Parallel()
	var h held
	k := lockKey{&gpu.Memory{ID: 1}, 2, 2}
	h.acquire(heldLock{key: k, scope: scope.Device, block: 5})
	require.Nil(t, h.set.Load(), "a CAS alone does not hold the lock")
	h.activate(scope.Block)
	require.Nil(t, h.set.Load(), "a block fence does not activate a device lock")
	h.activate(scope.Device)
	dev := h.set.Load()
	require.Len(t, dev.ids, 2, "a device lock has its device and its block identity")

	var b held
	b.acquire(heldLock{key: k, scope: scope.Block, block: 5})
	b.activate(scope.Block)
	blk := b.set.Load()
	require.Equal(t, []lockID{{k, 5}}, dev.intersect(blk).ids, "same block: the identities meet")

	var o held
	o.acquire(heldLock{key: k, scope: scope.Block, block: 6})
	o.activate(scope.Device)
	require.True(t, dev.disjoint(o.set.Load()), "a block lock of another block is another lock")
	h.release(k)
	require.Nil(t, h.set.Load())
	require.True(t, (*lockSet)(nil).disjoint(blk))
}
