package race_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

func TestTakeConsumesMatchingReports(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 64)
	y := gpu.Alloc[int32](d, "y", 64)
	det := race.New(race.Options{History: true})
	racy := func(t *gpu.Thread) {
		x.Store(t, 0, 1)
		y.Store(t, 0, 1)
	}
	require.NoError(t, twoWarps(t, d, det, racy))
	all := det.Reports()
	onX := func(r race.Report) bool { return r.Mem == x.Memory() }
	taken := det.Take(onX)
	require.NotEmpty(t, taken)
	for _, r := range taken {
		require.Equal(t, "x", r.Mem.Name)
	}
	rest := det.Reports()
	require.Len(t, rest, len(all)-len(taken))
	for _, r := range rest {
		require.Equal(t, "y", r.Mem.Name)
	}
	require.Empty(t, det.Take(onX), "taken reports are gone")
	require.NoError(t, twoWarps(t, d, det, racy))
	require.Len(t, det.Reports(), len(rest), "a taken race stays known: not reported again")
}
