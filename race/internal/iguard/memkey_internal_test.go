package iguard

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
)

// twoDevices returns the first buffer of each of two devices: memories
// with the same gpu.Memory.ID, on different devices.
func twoDevices(t *testing.T) (a, b *gpu.Memory) {
	t.Helper()
	da, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	db, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	a, b = gpu.Alloc[int32](da, "a", 8).Memory(), gpu.Alloc[int32](db, "b", 8).Memory()
	require.Equal(t, a.ID, b.ID, "each device numbers its memories from 1")
	return a, b
}

// TestMemKeysTwoDevices: memories of two devices with the same id are
// different memories in every table keyed by memory: launch metadata,
// in its array and in its map, densities, and lock identities.
func TestMemKeysTwoDevices(t *testing.T) {
	a, b := twoDevices(t)
	require.NotEqual(t, shared.KeyOf(a), shared.KeyOf(b))
	require.NotZero(t, shared.CompareKeys(shared.KeyOf(a), shared.KeyOf(b)))

	ss := newShadows(testEngine())
	require.NotSame(t, ss.get(a), ss.get(b), "registry array")
	for range len(ss.few) {
		ss.get(&gpu.Memory{ID: 1000 + uint64(ss.nfew.Load()), DeviceID: a.DeviceID})
	}
	a2, b2 := twoDevices(t)
	require.NotSame(t, ss.get(a2), ss.get(b2), "registry map")
	require.Same(t, ss.get(a), ss.lookup(shared.KeyOf(a)))

	var ds densities
	ds.learn(a, 5, 0)
	require.False(t, ds.firsts(a), "a is dense")
	require.True(t, ds.firsts(b), "b, another device's memory 1, is not")

	la, lb := lockIDs(a, 3), lockIDs(b, 3)
	require.Nil(t, la.intersect(lb), "locks at the same granule of two devices' memories are different locks")
	require.True(t, la.disjoint(lb))
	require.NotEqual(t, idsKey(la.ids), idsKey(lb.ids))
}
