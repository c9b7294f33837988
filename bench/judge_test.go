package bench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race"
)

// TestJudgeKeepsFalsePositivesAcrossAttempts: an attempt that reports a
// false alarm and misses the race, followed by one that finds it, must
// not be judged clean: retries are for missed races, not for hiding
// schedule-dependent false positives.
func TestJudgeKeepsFalsePositivesAcrossAttempts(t *testing.T) {
	res := Result{Expect: []race.Kind{race.MissingDeviceFence}}
	res.On.Reports = []race.Report{{Kind: race.ScopedAtomic}}
	res.judge()
	require.Equal(t, 1, res.Missed())
	res.On.Reports = []race.Report{{Kind: race.MissingDeviceFence}}
	res.judge()
	require.Equal(t, 0, res.Missed())
	require.Equal(t, 1, res.Matched)
	require.Equal(t, 1, res.FalsePositives, "the first attempt's false alarm still counts")
	require.False(t, res.OK())
}
