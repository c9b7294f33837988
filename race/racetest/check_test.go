package racetest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/racetest"
)

// TestCheck: Check fails the test once per race a detector of the test's
// own reported, naming the element, and resets the detector, so a second
// Check finds nothing.
func TestCheck(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	det := racetest.New()
	cfg := gpu.LaunchConfig{Name: "racy", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Observer: det}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) }))
	rec := record(t)
	racetest.Check(rec, det)
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], `global "x"[0]`)
	again := record(t)
	racetest.Check(again, det)
	require.Empty(t, again.errs, "Check reset the detector")
}
