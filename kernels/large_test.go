package kernels_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// largeExecutors are the executors the large-grid tests run on: one
// goroutine per thread only at the reduced size, where the grid is a few
// thousand threads.
func largeExecutors() []gpu.Executor {
	if largeShift == 0 {
		return []gpu.Executor{gpu.Fibers}
	}
	return []gpu.Executor{gpu.Fibers, gpu.Goroutines}
}

// TestLargeClean runs each large kernel's clean configuration with and
// without the detector: the output must match its reference, and the
// detector must report nothing.
func TestLargeClean(t *testing.T) {
	for _, k := range kernels.LargeShrunk(largeShift) {
		for _, ex := range largeExecutors() {
			t.Run(k.Name+"/"+ex.String(), func(t *testing.T) {
				launchErr, checkErr := run(t, k, "", ex, nil)
				require.NoError(t, launchErr, "launch, detection off")
				require.NoError(t, checkErr, "check, detection off")
				det := race.New(race.Options{History: true})
				launchErr, checkErr = run(t, k, "", ex, det)
				require.NoError(t, launchErr, "launch, detection on")
				assert.NoError(t, checkErr, "check, detection on")
				assert.Empty(t, det.Reports(), "false positives")
			})
		}
	}
}

// TestLargeInjections runs each large kernel's injection under the
// detector: a race of an expected kind must be reported in the injected
// code, and nothing outside it, within the deterministic schedules
// kernels.Expose searches.
func TestLargeInjections(t *testing.T) {
	for _, k := range kernels.LargeShrunk(largeShift) {
		require.NotEmpty(t, k.Injections, k.Name)
		for _, in := range k.Injections {
			t.Run(k.Name+"/"+in.Name, func(t *testing.T) { expose(t, k, exactVerdict(k, in)) })
		}
	}
}

// TestLargeInjectionsSpoil checks that each injection changes what the
// kernel computes when run: the output check sees the race's effect, so
// that the check is not vacuous. The histogram's plain merge loses an
// update only when two blocks interleave between one load and its store,
// which a run need not do.
func TestLargeInjectionsSpoil(t *testing.T) {
	for _, k := range kernels.LargeShrunk(largeShift) {
		for _, in := range k.Injections {
			t.Run(k.Name+"/"+in.Name, func(t *testing.T) {
				if k.Name == "large/histogram" {
					t.Skip("lost updates depend on the interleaving")
				}
				launchErr, checkErr := run(t, k, in.Name, gpu.Fibers, nil)
				require.NoError(t, launchErr, "launch")
				assert.Error(t, checkErr, "the injected race left the output right")
			})
		}
	}
}

// TestLargeShrunk checks the group's shape: five kernels under large/,
// not in All, with grids that shrink with the shift and a clamped shift.
func TestLargeShrunk(t *testing.T) {
	full, small := kernels.Large(), kernels.LargeShrunk(4)
	require.Len(t, full, 5)
	for i, k := range full {
		assert.Regexp(t, `^large/`, k.Name)
		assert.Equal(t, k.Name, small[i].Name)
		assert.NotEqual(t, k.Doc, small[i].Doc, "the doc states the size")
		_, inAll := kernels.All().Lookup(k.Name)
		assert.False(t, inAll, "%s is in All", k.Name)
	}
	assert.Equal(t, docs(kernels.LargeShrunk(10)), docs(kernels.LargeShrunk(99)), "shift clamped")
	assert.Equal(t, docs(full), docs(kernels.LargeShrunk(-1)), "shift clamped")
}

func docs(c kernels.Catalog) []string {
	var out []string
	for _, k := range c {
		out = append(out, k.Doc)
	}
	return out
}
