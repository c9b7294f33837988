package race_test

import (
	"strings"
	"sync/atomic"
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
	det := race.New(race.Options{Family: race.IGUARD, History: true})
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

// TestHaltNamesTheRacingLine: a launch halted at its first race fails
// with the racing access's kernel line as the thread's site, a one-line
// summary of the race, and no goroutine dump; the full report is the
// detector's. With Central the halt comes at the thread's next access,
// still a kernel line and still without a dump.
func TestHaltNamesTheRacingLine(t *testing.T) {
	t.Parallel()
	for _, central := range []bool{false, true} {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		det := race.New(race.Options{Family: race.IGUARD, HaltOnFirst: true, History: true, Central: central})
		var line atomic.Int64
		cfg := gpu.LaunchConfig{Name: "halt", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Observer: det}
		err := d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			for range 100 { // with Central, accesses after the race raise it
				line.Store(int64(callerLine()) + 1)
				x.Store(t, 0, 1)
			}
		})
		var te *gpu.ThreadError
		require.ErrorAs(t, err, &te, "central=%v", central)
		require.Equal(t, int(line.Load()), te.Site.Line(), "central=%v: the racing access's line", central)
		require.True(t, strings.HasSuffix(te.Site.File(), "findings_test.go"), te.Site.File())
		var h *race.Halt
		require.ErrorAs(t, err, &h)
		require.NotContains(t, err.Error(), "goroutine ", "no stack dump")
		require.NotContains(t, err.Error(), "findings.go", "no library line")
		require.NotContains(t, err.Error(), "WARNING: SCOPED RACE", "the report itself is the detector's")
		require.Contains(t, err.Error(), `on global "x"[0] with the weak store at`)
		require.Len(t, det.Reports(), 1)
	}
}

// TestCountAgrees: one race is "1 race", never "1 races".
func TestCountAgrees(t *testing.T) {
	require.Equal(t, "1 race", race.Count(1))
	require.Equal(t, "0 races", race.Count(0))
	require.Equal(t, "3 races", race.Count(3))
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	det := race.New(race.Options{Family: race.IGUARD})
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Observer: det}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 1) }))
	require.Equal(t, "race.Detector: 1 race, 0 dropped", det.String())
}

// TestResetZeroesTheCounters: Reset zeroes every access counter of each
// family, repeats included.
func TestResetZeroesTheCounters(t *testing.T) {
	t.Parallel()
	for _, fam := range []race.Family{race.Exact, race.IGUARD} {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 64)
		det := race.New(race.Options{Family: fam})
		require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
			x.Store(t, t.ThreadRank(), 1)
			x.Load(t, t.ThreadRank())
			x.Load(t, t.ThreadRank())
		}))
		st := det.Stats()
		require.NotZero(t, st.Accesses, "family %v", fam)
		require.NotZero(t, st.Repeats, "family %v: a thread's reload at one epoch", fam)
		if fam == race.Exact {
			require.NotZero(t, st.Locks, "family %v: the store's check took its page's lock", fam)
		}
		det.Reset()
		st = det.Stats()
		require.Zero(t, st.Accesses, "family %v", fam)
		require.Zero(t, st.Checks, "family %v", fam)
		require.Zero(t, st.Firsts, "family %v", fam)
		require.Zero(t, st.Repeats, "family %v", fam)
		require.Zero(t, st.Joins, "family %v", fam)
		require.Zero(t, st.Pairs, "family %v", fam)
		require.Zero(t, st.Locks, "family %v", fam)
	}
}
