package kernels_test

import (
	"fmt"
	"slices"
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
// under the detector, and checks the output and that nothing is reported.
func TestContentionClean(t *testing.T) {
	for _, k := range kernels.Contention() {
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			t.Run(fmt.Sprintf("%s/%v", k.Name, ex), func(t *testing.T) {
				t.Parallel()
				det := race.New(race.Options{History: true})
				launchErr, checkErr := run(t, k, "", ex, det)
				require.NoError(t, launchErr)
				require.NoError(t, checkErr)
				require.Empty(t, det.Reports())
				launchErr, checkErr = run(t, k, "", ex, nil)
				require.NoError(t, launchErr)
				require.NoError(t, checkErr)
			})
		}
	}
}

// TestContentionInjections checks that each injection is reported with
// one of its expected kinds, at the injected code.
func TestContentionInjections(t *testing.T) {
	for _, k := range kernels.Contention() {
		for _, in := range k.Injections {
			t.Run(k.Name+"/"+in.Name, func(t *testing.T) {
				t.Parallel()
				det := race.New(race.Options{History: true})
				launchErr, _ := run(t, k, in.Name, gpu.Fibers, det)
				require.NoError(t, launchErr)
				rs := det.Reports()
				require.NotEmpty(t, rs)
				for _, r := range rs {
					require.Contains(t, in.Expect, r.Kind, r.String())
					at := strings.HasSuffix(r.Current.Site.Function(), in.Where) || strings.HasSuffix(r.Previous.Site.Function(), in.Where)
					require.True(t, at, "report not at %s:\n%v", in.Where, r)
				}
				require.True(t, slices.ContainsFunc(rs, func(r race.Report) bool { return slices.Contains(in.Expect, r.Kind) }))
			})
		}
	}
}
