package bench_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

func kernel(t *testing.T, name string) *kernels.Entry {
	t.Helper()
	k, ok := kernels.All().Lookup(name)
	require.True(t, ok, "no kernel %s", name)
	return k
}

func TestEvaluateClean(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Case{Kernel: kernel(t, "scor/1dconv"), Seed: 1})
	require.True(t, r.OK(), r.Problem())
	require.Zero(t, r.Matched)
	require.Zero(t, r.FalsePositives)
	require.Zero(t, r.Missed())
	require.Positive(t, r.Off.Elapsed)
	require.Positive(t, r.On.Elapsed)
	require.Equal(t, 1, r.Attempts)
	require.Empty(t, r.Trials, "a clean configuration runs once, under the executor's own schedule")
}

func TestEvaluateInjection(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Case{Kernel: kernel(t, "scor/1dconv"), Inject: "all-block-atomics", Seed: 1})
	require.True(t, r.OK(), r.Problem())
	require.NotZero(t, r.Matched)
	require.Equal(t, race.ScopedAtomic, r.Found()[0])
	require.Equal(t, kernels.Trials(1), r.Trials, "found under the first schedule")
}

// TestEvaluateCountsFalsePositives judges a clean configuration against a
// detector that reports everything it sees as a race: every report must
// count as a false positive and fail the configuration.
func TestEvaluateCountsFalsePositives(t *testing.T) {
	racy := kernel(t, "scor/1dconv")
	inj := bench.Case{Kernel: racy, Inject: "all-block-atomics", Seed: 1}
	reports := bench.Once(context.Background(), inj, bench.NewDetector()).Reports
	require.NotEmpty(t, reports, "injected run")
	clean := bench.Case{Kernel: racy, Seed: 1, Detector: func() bench.Detector { return canned{bench.NewDetector(), reports} }}
	r := bench.Evaluate(context.Background(), clean)
	require.False(t, r.OK(), "clean run with canned reports")
	require.Equal(t, len(reports), r.FalsePositives)
}

// canned is a detector whose reports are fixed.
type canned struct {
	bench.Detector
	reps []race.Report
}

func (c canned) Reports() []race.Report { return c.reps }

func TestEvaluateBadInjection(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Case{Kernel: kernel(t, "scor/1dconv"), Inject: "nosuch"})
	require.False(t, r.OK(), "unknown injection")
	require.Error(t, r.Off.LaunchErr)
}

func TestConfigs(t *testing.T) {
	k := kernel(t, "scor/reduction")
	cs := bench.Configs(kernels.Catalog{k}, kernels.Default, 1)
	require.Len(t, cs, 1+len(k.Injections))
	require.Empty(t, cs[0].Inject, "the clean kernel first")
	require.Equal(t, k.Injections[0].Name, cs[1].Inject)
}

// TestEvaluateSearchesSchedules: a configuration whose race no run shows
// runs under every schedule of its bound, each another deterministic
// one, and its problem names them.
func TestEvaluateSearchesSchedules(t *testing.T) {
	blind := func() bench.Detector { return canned{bench.NewDetector(), nil} }
	c := bench.Case{Kernel: kernel(t, "scor/1dconv"), Inject: "all-block-atomics", Seed: 1, Detector: blind, Attempts: 3}
	r := bench.Evaluate(context.Background(), c)
	require.False(t, r.OK())
	require.Equal(t, 3, r.Attempts)
	require.Equal(t, kernels.Trials(3), r.Trials)
	require.Contains(t, r.Problem(), "under the schedules default, random seeds 1-2")
}

// TestEvaluateReplays evaluates the tree search's cross-block steal
// injection twice: its race needs a thief of another block, which a
// free-running launch on a loaded machine may never schedule. Each
// evaluation's runs are deterministic, so both find the race under the
// same schedule and report the same races, to the sites and threads.
func TestEvaluateReplays(t *testing.T) {
	c := bench.Case{Kernel: kernel(t, "scor/uts"), Inject: "steal-top-block-exch", Seed: 1}
	var got []string
	for range 2 {
		r := bench.Evaluate(context.Background(), c)
		require.True(t, r.OK(), r.Problem())
		s := fmt.Sprint(r.Trials)
		for _, rep := range r.On.Reports {
			s += rep.String()
		}
		got = append(got, s)
	}
	require.Equal(t, got[0], got[1])
}
