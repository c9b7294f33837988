package shared

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestMemKeysTwoDevices: memories of two devices with the same id have
// different keys, ordered by device first.
func TestMemKeysTwoDevices(t *testing.T) {
	da, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	db, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	a, b := gpu.Alloc[int32](da, "a", 8).Memory(), gpu.Alloc[int32](db, "b", 8).Memory()
	require.Equal(t, a.ID, b.ID, "each device numbers its memories from 1")
	require.NotEqual(t, KeyOf(a), KeyOf(b))
	require.Equal(t, -1, CompareKeys(KeyOf(a), KeyOf(b)), "a's device was made first")
	require.Equal(t, 1, CompareKeys(KeyOf(b), KeyOf(a)))
	require.Zero(t, CompareKeys(KeyOf(a), KeyOf(a)))
}
