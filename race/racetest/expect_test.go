package racetest_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// racyTwice races on global x (a block-scope atomic across blocks) and on
// each block's shared array "tile" (two warps, no barrier).
func racyTwice(d *gpu.Device, x gpu.Buffer[int32]) (gpu.LaunchConfig, gpu.Kernel) {
	cfg := gpu.LaunchConfig{Name: "twice", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}}
	return cfg, func(t *gpu.Thread) {
		x.AtomicAdd(t, 0, 1, scope.Block)
		tile := gpu.Shared[int32](t, "tile", 1)
		if t.ThreadRank() == 0 || t.ThreadRank() == 32 {
			tile.Store(t, 0, int32(t.ThreadRank()))
		}
	}
}

// TestExpectConsumesGlobalAndSharedRaces: expected races, on a buffer and
// on a shared array named by Shared, no longer fail the test at its end.
func TestExpectConsumesGlobalAndSharedRaces(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec)
		x := gpu.Alloc[int32](d, "x", 1)
		cfg, k := racyTwice(d, x)
		require.NoError(t, d.Launch(t.Context(), cfg, k))
		det := racetest.DetectorOf(d)
		require.NotEmpty(t, racetest.Expect(rec, det, race.ScopedAtomic, x))
		for _, r := range racetest.Expect(rec, det, race.MissingBlockFence, racetest.Shared("tile")) {
			require.Equal(t, gpu.SharedSpace, r.Mem.Space)
		}
	})
	require.Empty(t, rec.errs, "every race was expected")
}

// TestExpectFailsWithoutTheRace: expecting a race that was not reported
// fails the test, listing what was.
func TestExpectFailsWithoutTheRace(t *testing.T) {
	t.Parallel()
	rec := record(t)
	rec.run(func() {
		d := racetest.Device(rec)
		x := gpu.Alloc[int32](d, "x", 1)
		y := gpu.Alloc[int32](d, "y", 1)
		cfg, k := racyTwice(d, x)
		require.NoError(t, d.Launch(t.Context(), cfg, k))
		det := racetest.DetectorOf(d)
		require.Empty(t, racetest.Expect(rec, det, race.ScopedAtomic, y), "another buffer")
		require.Empty(t, racetest.Expect(rec, det, race.MissingDeviceFence, x), "another kind")
		require.Empty(t, racetest.Expect(rec, det, race.MissingBlockFence, racetest.Shared("other")), "another shared array")
	})
	require.Len(t, rec.errs, 5, "three failed expectations, then the two races at cleanup")
	require.Contains(t, rec.errs[0], `no scoped-atomic race on global "y"; reported: `)
	require.Contains(t, rec.errs[0], `scoped-atomic on global "x"[0]`, "the message lists what was reported")
	require.Contains(t, rec.errs[0], `missing-block-fence on shared "tile"[0]`, "the message lists what was reported")
	require.Contains(t, rec.errs[2], `no missing-block-fence race on shared "other"`)
}

// TestExpectMatchesASharedBuffer: a buffer of one block's shared array
// matches the reports of every block's, by name.
func TestExpectMatchesASharedBuffer(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 1)
	var tile gpu.Buffer[int32] // block 1's, kept by its thread 0
	cfg, racy := racyTwice(d, x)
	det := racetest.New()
	cfg.Observer = det
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		racy(t)
		if t.BlockRank() == 1 && t.ThreadRank() == 0 {
			tile = gpu.Shared[int32](t, "tile", 1)
		}
	}))
	racetest.Expect(t, det, race.MissingBlockFence, tile)
	racetest.Expect(t, det, race.ScopedAtomic, x)
	require.Empty(t, det.Reports())
}
