package kernels_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// TestContentionNames checks that the contention kernels are named
// contention/... and have an injection each.
func TestContentionNames(t *testing.T) {
	c := kernels.Contention()
	require.Len(t, c, 4)
	for _, k := range c {
		require.True(t, strings.HasPrefix(k.Name, "contention/"), k.Name)
		require.NotEmpty(t, k.Injections, k.Name)
		require.False(t, k.Racy, k.Name)
	}
}

// TestContentionClean runs each contention kernel clean on each executor,
// under the default detector, and checks the output and the Exact
// family's verdict (see assertVerdict).
func TestContentionClean(t *testing.T) {
	for _, k := range kernels.Contention() {
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			t.Run(fmt.Sprintf("%s/%v", k.Name, ex), func(t *testing.T) {
				t.Parallel()
				det := race.New(race.Options{History: true})
				launchErr, checkErr := run(t, k, "", ex, det)
				require.NoError(t, launchErr)
				require.NoError(t, checkErr)
				assertVerdict(t, k.ExpectedIn("", true), det.Reports())
				launchErr, checkErr = run(t, k, "", ex, nil)
				require.NoError(t, launchErr)
				require.NoError(t, checkErr)
			})
		}
	}
}

// TestContentionInjections checks that each injection is reported with
// one of its expected kinds, at the injected code, and nothing else is,
// within the deterministic schedules kernels.Expose searches.
func TestContentionInjections(t *testing.T) {
	for _, k := range kernels.Contention() {
		for _, in := range k.Injections {
			t.Run(k.Name+"/"+in.Name, func(t *testing.T) {
				t.Parallel()
				expose(t, k, exactVerdict(k, in))
			})
		}
	}
}
