package bench_test

import (
	"context"
	"testing"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

func kernel(t *testing.T, name string) *kernels.Kernel {
	t.Helper()
	k, ok := kernels.All().Lookup(name)
	if !ok {
		t.Fatalf("no kernel %s", name)
	}
	return k
}

func TestEvaluateClean(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Seed: 1})
	if !r.OK() || r.Matched != 0 || r.FalsePositives != 0 || r.Missed() != 0 || r.Off.Elapsed <= 0 || r.On.Elapsed <= 0 {
		t.Errorf("clean 1dconv: %+v (%s)", r, r.Problem())
	}
}

func TestEvaluateInjection(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Inject: "all-block-atomics", Seed: 1})
	if !r.OK() || r.Matched == 0 || r.Found()[0] != race.ScopedAtomic {
		t.Errorf("injected 1dconv: %+v (%s)", r, r.Problem())
	}
}

// TestEvaluateCountsFalsePositives judges a clean configuration against a
// detector that reports everything it sees as a race: every report must
// count as a false positive and fail the configuration.
func TestEvaluateCountsFalsePositives(t *testing.T) {
	racy := kernel(t, "scor/1dconv")
	inj := bench.Config{Kernel: racy, Inject: "all-block-atomics", Seed: 1}
	reports := bench.Once(context.Background(), inj, bench.NewDetector()).Reports
	if len(reports) == 0 {
		t.Fatal("injected run reported nothing")
	}
	clean := bench.Config{Kernel: racy, Seed: 1, Detector: func() bench.Detector { return canned{bench.NewDetector(), reports} }}
	r := bench.Evaluate(context.Background(), clean)
	if r.OK() || r.FalsePositives != len(reports) {
		t.Errorf("clean run with canned reports: ok=%v false positives %d, want %d", r.OK(), r.FalsePositives, len(reports))
	}
}

// canned is a detector whose reports are fixed.
type canned struct {
	bench.Detector
	reps []race.Report
}

func (c canned) Reports() []race.Report { return c.reps }

func TestEvaluateBadInjection(t *testing.T) {
	r := bench.Evaluate(context.Background(), bench.Config{Kernel: kernel(t, "scor/1dconv"), Inject: "nosuch"})
	if r.OK() || r.Off.LaunchErr == nil {
		t.Errorf("unknown injection passed: %+v", r)
	}
}

func TestConfigs(t *testing.T) {
	k := kernel(t, "scor/reduction")
	cs := bench.Configs(kernels.Catalog{k}, kernels.Default, 1)
	if len(cs) != 1+len(k.Injections) || cs[0].Inject != "" || cs[1].Inject != k.Injections[0].Name {
		t.Errorf("configs: %+v", cs)
	}
}
