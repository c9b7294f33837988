package bench_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

func kernel(t *testing.T, name string) *kernels.Kernel {
	t.Helper()
	k, ok := kernels.All().Lookup(name)
	require.True(t, ok, "no kernel %s", name)
	return k
}

func TestEvaluateClean(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Seed: 1})
	require.True(t, r.OK(), r.Problem())
	require.Zero(t, r.Matched)
	require.Zero(t, r.FalsePositives)
	require.Zero(t, r.Missed())
	require.Positive(t, r.Off.Elapsed)
	require.Positive(t, r.On.Elapsed)
}

func TestEvaluateInjection(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Inject: "all-block-atomics", Seed: 1})
	require.True(t, r.OK(), r.Problem())
	require.NotZero(t, r.Matched)
	require.Equal(t, race.ScopedAtomic, r.Found()[0])
}

// TestEvaluateCountsFalsePositives judges a clean configuration against a
// detector that reports everything it sees as a race: every report must
// count as a false positive and fail the configuration.
func TestEvaluateCountsFalsePositives(t *testing.T) {
	racy := kernel(t, "scor/1dconv")
	inj := bench.Config{Kernel: racy, Inject: "all-block-atomics", Seed: 1}
	reports := bench.Once(context.Background(), inj, bench.NewDetector()).Reports
	require.NotEmpty(t, reports, "injected run")
	clean := bench.Config{Kernel: racy, Seed: 1, Detector: func() bench.Detector { return canned{bench.NewDetector(), reports} }}
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
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Inject: "nosuch"})
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
