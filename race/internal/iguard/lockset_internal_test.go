package iguard

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// lockIDs returns sorted identities of block-0 locks at the granules of
// mem.
func lockIDs(mem *gpu.Memory, grans ...uint64) *lockSet {
	s := &lockSet{}
	for _, g := range grans {
		s.ids = append(s.ids, lockID{lockKey{mem: mem, gran: g}, 0})
	}
	return s
}

// TestIntersect checks s ∩ o, and that it reuses s or o, without
// allocating, whenever the result equals one of them.
func TestIntersect(t *testing.T) {
	mem := &gpu.Memory{ID: 1}
	abc, ab, bc, cd := lockIDs(mem, 1, 2, 3), lockIDs(mem, 1, 2), lockIDs(mem, 2, 3), lockIDs(mem, 3, 4)
	for _, c := range []struct {
		name string
		s, o *lockSet
		want *lockSet // the very set, when the result must be s or o
		ids  *lockSet // the result's contents otherwise
	}{
		{name: "same set", s: ab, o: ab, want: ab},
		{name: "s within o", s: ab, o: abc, want: ab},
		{name: "o within s", s: abc, o: bc, want: bc},
		{name: "overlap", s: ab, o: bc, ids: lockIDs(mem, 2)},
		{name: "disjoint", s: ab, o: cd},
		{name: "empty", s: nil, o: ab},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.s.intersect(c.o)
			switch {
			case c.want != nil:
				require.Same(t, c.want, got)
				require.Zero(t, testing.AllocsPerRun(100, func() { c.s.intersect(c.o) }))
			case c.ids != nil:
				require.Equal(t, c.ids.ids, got.ids)
			default:
				require.Nil(t, got)
			}
			require.Equal(t, got.empty(), c.s.disjoint(c.o), "disjoint agrees with intersect")
			require.Zero(t, testing.AllocsPerRun(100, func() { c.s.disjoint(c.o) }))
		})
	}
}

// TestPublishReusesSet: a lock taken, activated by a fence and released in
// a loop publishes the same active set each time; the table reuses the
// set it published last rather than allocate it again, and never changes
// a set it published.
func TestPublishReusesSet(t *testing.T) {
	mem := &gpu.Memory{ID: 1}
	var h held
	cycle := func(gran uint64) *lockSet {
		k := lockKey{mem: mem, gran: gran}
		h.acquire(heldLock{key: k, scope: scope.Device})
		require.Nil(t, h.set.Load(), "a lock is not active before its fence")
		h.activate(scope.Device)
		s := h.set.Load()
		h.release(k)
		require.Nil(t, h.set.Load())
		return s
	}
	first := cycle(7)
	require.Len(t, first.ids, 2, "a device lock has a device and a block identity")
	require.Same(t, first, cycle(7))
	other := cycle(8)
	require.NotSame(t, first, other)
	require.Same(t, first, cycle(7), "a one-lock set published before is reused, as lanes sharing a warp table need")
	require.Zero(t, testing.AllocsPerRun(100, func() { cycle(7); cycle(8) }))
	require.Equal(t, uint64(7), first.ids[0].key.gran, "a published set is never changed")
	require.Equal(t, uint64(8), other.ids[0].key.gran)
	require.Zero(t, testing.AllocsPerRun(100, func() { cycle(8) }))
}

// TestKeepClears: a table's arrays, kept for the next launch, hold nothing
// of this one: no element up to their capacity names a memory.
func TestKeepClears(t *testing.T) {
	mem := &gpu.Memory{ID: 1}
	var h held
	one := lockKey{mem: mem, gran: 9}
	h.acquire(heldLock{key: one, scope: scope.Block})
	h.activate(scope.Block)
	h.release(one)
	for g := range uint64(4) {
		h.acquire(heldLock{key: lockKey{mem: mem, gran: g}, scope: scope.Device})
	}
	h.activate(scope.Device)
	h.release(lockKey{mem: mem, gran: 3})
	kept := h.keep()
	locks, ids := kept.locks, kept.ids
	require.Empty(t, kept.small, "no set of this launch is reused by the next")
	require.Empty(t, locks)
	require.Empty(t, ids)
	require.Positive(t, cap(locks))
	require.Positive(t, cap(ids))
	for _, l := range locks[:cap(locks)] {
		require.Zero(t, l)
	}
	for _, id := range ids[:cap(ids)] {
		require.Zero(t, id)
	}
}

// TestLockSetDuringSplit: a lane holding an active lock in its warp's
// table keeps seeing it, and keeps activating its pending locks, while
// another lane's acquire switches the warp to per-thread tables under it.
// Before lockSet re-read the mode after reading the warp table, a read
// that straddled the switch found the emptied table: a lock held
// throughout read as none, and a correct critical section was reported
// as improperly locked.
func TestLockSetDuringSplit(t *testing.T) {
	mem := &gpu.Memory{ID: 1}
	b := (&Engine{}).newBlock(&gpu.Grid{BlockSize: 2, Warps: 1, WarpSize: 2})
	holder, taker := &b.threads[0], &b.threads[1]
	lost, pending := 0, 0
	for range 3000 {
		b.reset()
		holder.acquire(heldLock{key: lockKey{mem: mem, gran: 0}, scope: scope.Block})
		holder.fenceLocks(scope.Block)
		holder.acquire(heldLock{key: lockKey{mem: mem, gran: 2}, scope: scope.Block})
		var split sync.WaitGroup
		split.Go(func() {
			taker.acquire(heldLock{key: lockKey{mem: mem, gran: 1}, scope: scope.Block, lane: 1})
		})
		for !taker.w.perThread.Load() {
			if holder.lockSet().empty() {
				lost++
			}
		}
		holder.fenceLocks(scope.Block)
		split.Wait()
		if s := holder.lockSet(); s == nil || len(s.ids) != 2 {
			pending++
		}
	}
	require.Zero(t, lost, "reads of the lock set that found no lock")
	require.Zero(t, pending, "fences that did not activate the holder's second lock")
}

// TestVersionCountsActiveChanges: a table's version moves when its
// active set does, and only then: a pending acquire (a CAS no fence has
// activated, as a hash table's insert is) leaves it, so the thread's
// stamps and first records are not disturbed by locks that hold nothing.
func TestVersionCountsActiveChanges(t *testing.T) {
	mem := &gpu.Memory{ID: 1}
	var h held
	a, b := lockKey{mem: mem, gran: 1}, lockKey{mem: mem, gran: 2}
	for _, step := range []struct {
		name   string
		do     func()
		bumped bool
	}{
		{"pending acquire", func() { h.acquire(heldLock{key: a, scope: scope.Device}) }, false},
		{"release of a pending lock", func() { h.release(a) }, false},
		{"acquire again", func() { h.acquire(heldLock{key: a, scope: scope.Device}) }, false},
		{"fence activates it", func() { h.activate(scope.Device) }, true},
		{"second pending acquire", func() { h.acquire(heldLock{key: b, scope: scope.Block}) }, false},
		{"fence activates the second", func() { h.activate(scope.Block) }, true},
		{"fence with nothing pending", func() { h.activate(scope.Device) }, false},
		{"release of an active lock", func() { h.release(b) }, true},
		{"release of the last", func() { h.release(a) }, true},
	} {
		before, set := h.ver.Load(), h.set.Load()
		step.do()
		require.Equal(t, step.bumped, h.ver.Load() != before, step.name)
		require.Equal(t, step.bumped, h.set.Load() != set, "%s: the set changes exactly when the version does", step.name)
	}
}
