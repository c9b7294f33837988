package iguard

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// lockSets returns n distinct locksets, on locks of one memory.
func lockSets(n int) []*lockSet {
	mem := &gpu.Memory{ID: 3}
	s := make([]*lockSet, n)
	for i := range s {
		s[i] = &lockSet{ids: []lockID{{key: lockKey{mem: mem, gran: uint64(i)}}}}
	}
	return s
}

// TestLockHandles: the empty set is handle 0; every other set gets one
// handle per table, the same at every naming, which finds the set again
// across the table's chunks.
func TestLockHandles(t *testing.T) {
	var tab lockTable
	require.Zero(t, tab.intern(nil))
	require.Zero(t, tab.intern(&lockSet{}))
	require.Nil(t, tab.lookup(0))
	sets := lockSets(200) // past the first four chunks
	seen := map[lockHandle]bool{}
	for _, s := range sets {
		h := tab.intern(s)
		require.NotZero(t, h)
		require.False(t, seen[h], "handle %d given twice", h)
		seen[h] = true
	}
	for _, s := range sets {
		h := tab.intern(s)
		require.Same(t, s, tab.lookup(h))
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { tab.intern(sets[150]) }), "a named set")
}

// TestLockHandlesByIdentities: sets of equal identities share a handle,
// so that a thread publishing a new set at each acquisition of the same
// locks does not grow the table; sets that differ in any part of an
// identity do not.
func TestLockHandlesByIdentities(t *testing.T) {
	var tab lockTable
	m1, m2 := &gpu.Memory{ID: 1}, &gpu.Memory{ID: 2}
	id := lockID{key: lockKey{mem: m1, gran: 4, index: 16}, block: 2}
	h := tab.intern(&lockSet{ids: []lockID{id}})
	for range 3 {
		require.Equal(t, h, tab.intern(&lockSet{ids: []lockID{id}}))
	}
	require.Equal(t, uint32(1), tab.n)
	seen := map[lockHandle]bool{h: true}
	for _, o := range []lockID{
		{key: lockKey{mem: m2, gran: 4, index: 16}, block: 2},
		{key: lockKey{mem: m1, gran: 5, index: 16}, block: 2},
		{key: lockKey{mem: m1, gran: 4, index: 17}, block: 2},
		{key: lockKey{mem: m1, gran: 4, index: 16}, block: -1},
	} {
		ho := tab.intern(&lockSet{ids: []lockID{o}})
		require.False(t, seen[ho], "%+v", o)
		seen[ho] = true
	}
	h2 := tab.intern(&lockSet{ids: []lockID{id, id}})
	require.False(t, seen[h2], "two identities")
}

// TestLockHandleChunks: handles map onto consecutive slots of chunks
// doubling in size, up to the last handle 32 bits hold.
func TestLockHandleChunks(t *testing.T) {
	for _, c := range []struct {
		h lockHandle
		k int
		i uint64
	}{
		{1, 0, 0},
		{1 << lockChunk0Bits, 0, 1<<lockChunk0Bits - 1},
		{1<<lockChunk0Bits + 1, 1, 0},
		{3 << lockChunk0Bits, 1, 1<<(lockChunk0Bits+1) - 1},
		{3<<lockChunk0Bits + 1, 2, 0},
		{1<<32 - 1, lockChunks - 1, 1<<32 - 2 - (1<<32 - 1<<lockChunk0Bits)},
	} {
		k, i := c.h.chunk()
		assert.Equal(t, c.k, k, "handle %d", c.h)
		assert.Equal(t, c.i, i, "handle %d", c.h)
	}
}

// TestLockHandlesTwoTables: a set two launches hold has a handle in
// each, kept when the other names it, so that alternating checks name
// nothing anew.
func TestLockHandlesTwoTables(t *testing.T) {
	var a, b lockTable
	s := lockSets(1)[0]
	ha, hb := a.intern(s), b.intern(s)
	for range 3 {
		require.Equal(t, ha, a.intern(s))
		require.Equal(t, hb, b.intern(s))
	}
	require.Same(t, s, a.lookup(ha))
	require.Same(t, s, b.lookup(hb))
	require.Equal(t, uint32(1), a.n, "one set named once")
	require.Equal(t, uint32(1), b.n, "one set named once")
}

// TestLockHandlesConcurrent: threads naming and looking up sets at once
// agree on every handle (run with -race for the memory-model side).
func TestLockHandlesConcurrent(t *testing.T) {
	var tab lockTable
	sets := lockSets(300)
	got := make([][]lockHandle, 4)
	var wg sync.WaitGroup
	for g := range got {
		got[g] = make([]lockHandle, len(sets))
		wg.Go(func() {
			for i := range sets {
				j := (i*7 + g*31) % len(sets)
				h := tab.intern(sets[j])
				got[g][j] = h
				if tab.lookup(h) != sets[j] {
					got[g][j] = 0
				}
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, h := range got[g] {
			require.NotZero(t, h, "set %d", i)
			require.Equal(t, got[0][i], h, "set %d", i)
		}
	}
}
