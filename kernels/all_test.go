package kernels_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/internal/isolate"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// run sets up and runs one configuration of k on a fresh device with the
// executor and observer given, and returns the launch error and the
// output check's error.
func run(t *testing.T, k *kernels.Entry, inject string, ex gpu.Executor, obs gpu.Observer, tweaks ...func(*gpu.LaunchConfig)) (launchErr, checkErr error) {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	r, err := k.Prepare(d, kernels.Params{Seed: 1, Inject: inject})
	require.NoError(t, err, "%s [%s]: setup", k.Name, inject)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout*raceSlowdown)
	defer cancel()
	launchErr = r.Launch(ctx, func(ctx context.Context, cfg gpu.LaunchConfig, kern gpu.Kernel) error {
		cfg.Executor, cfg.Observer = ex, obs
		for _, tweak := range tweaks {
			tweak(&cfg)
		}
		return d.Launch(ctx, cfg, kern)
	})
	return launchErr, r.Check()
}

// nonMicro is every catalog entry but ScoR's microbenchmarks, which
// package race's corpus tests.
func nonMicro() kernels.Catalog {
	var c kernels.Catalog
	for _, k := range kernels.All() {
		if !strings.HasPrefix(k.Name, "micro/") {
			c = append(c, k)
		}
	}
	return c
}

// names returns the names of the kernels of c, the groups of the tables
// below: under -race -short each kernel's subtests run in a child process
// (see package isolate).
func names(c kernels.Catalog) []string {
	var ns []string
	for _, k := range c {
		ns = append(ns, k.Name)
	}
	return ns
}

// TestCleanOutputs checks every clean kernel's output against its
// sequential reference on every executor, with no observer.
func TestCleanOutputs(t *testing.T) {
	clean := slices.DeleteFunc(slices.Clone(kernels.All()), func(k *kernels.Entry) bool { return k.Racy })
	if isolate.Groups(t, names(clean)) {
		return
	}
	for _, k := range kernels.All() {
		if k.Racy {
			continue
		}
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			t.Run(fmt.Sprintf("%s/%v", k.Name, ex), func(t *testing.T) {
				t.Parallel()
				launchErr, checkErr := run(t, k, "", ex, nil)
				require.NoError(t, launchErr, "launch")
				require.NoError(t, checkErr, "check")
			})
		}
	}
}

// TestCleanNoRaces runs every clean kernel under the default detector (the
// Exact family) on every executor: it must report nothing and still
// compute the right output, except where the kernel's Exact verdict says
// the clean configuration races by the model (the IGUARD family's
// "writer fenced, so it is published"): then it must report those kinds
// only.
func TestCleanNoRaces(t *testing.T) {
	if isolate.Groups(t, names(nonMicro())) {
		return
	}
	for _, k := range nonMicro() {
		for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			t.Run(fmt.Sprintf("%s/%v", k.Name, ex), func(t *testing.T) {
				t.Parallel()
				det := race.New(race.Options{History: true})
				launchErr, checkErr := run(t, k, "", ex, det)
				require.NoError(t, launchErr, "launch")
				assert.NoError(t, checkErr, "check")
				assertVerdict(t, k.ExpectedIn("", true), det.Reports())
			})
		}
	}
}

// TestInjections runs every injection under the default detector (the
// Exact family, judged by its verdicts: kernels.Entry.ExpectedIn): some
// race of an expected kind must be reported with a site in the injected
// code, and nothing outside it; an injection the family finds clean must
// report nothing. The runs search deterministic schedules
// (kernels.Expose), so whether the race shows is decided by the kernel
// and the schedule, not by the machine's load. The long tables of package
// bench run every injection under every configuration of both families.
func TestInjections(t *testing.T) {
	injected := slices.DeleteFunc(nonMicro(), func(k *kernels.Entry) bool { return len(k.Injections) == 0 })
	if isolate.Groups(t, names(injected)) {
		return
	}
	for _, k := range nonMicro() {
		for _, in := range k.Injections {
			t.Run(k.Name+"/"+in.Name, func(t *testing.T) {
				t.Parallel()
				expose(t, k, exactVerdict(k, in))
			})
		}
	}
}

// exactVerdict returns in with the Exact family's verdict in place of
// the IGUARD family's: its kinds, and where, if it says.
func exactVerdict(k *kernels.Entry, in kernels.Injection) kernels.Injection {
	in.Expect = k.ExpectedIn(in.Name, true)
	if in.Precise != nil && in.Precise.Where != "" {
		in.Where = in.Precise.Where
	}
	return in
}

// expose searches the schedules kernels.Expose tries for in's race, under
// the detector on the Fibers executor, and fails t if none shows it or
// some run reports a race outside the injection or fails to launch. An
// injection that expects no race runs once and must report nothing.
func expose(t *testing.T, k *kernels.Entry, in kernels.Injection) {
	t.Helper()
	var reps []race.Report
	ran, ok, err := kernels.Expose(0, func(tr kernels.Trial) (bool, error) {
		det := race.New(race.Options{History: true})
		launchErr, checkErr := run(t, k, in.Name, gpu.Fibers, det, tr.Apply)
		if !in.Corrupts {
			assert.NoError(t, checkErr, "check under schedule %v", tr)
		}
		reps = det.Reports()
		for _, r := range reps {
			assert.True(t, attributable(r, in), "a report outside the injection (a false positive) under schedule %v:\n%v", tr, r)
		}
		return len(in.Expect) == 0 || found(reps, in), launchErr
	})
	require.NoError(t, err, "launch")
	if !ok {
		assert.Fail(t, "injected race not reported", "no %v race reported in %s under the schedules %s; the last got %d reports:\n%v",
			in.Expect, in.Where, kernels.TrialsString(ran), len(reps), reps)
	}
}

// found reports whether some report has an expected kind and a site in
// the injection's function.
func found(reps []race.Report, in kernels.Injection) bool {
	return slices.ContainsFunc(reps, func(r race.Report) bool { return attributable(r, in) })
}

// attributable reports whether r is the injected race: an expected kind
// with a site in the injection's function.
func attributable(r race.Report, in kernels.Injection) bool {
	return slices.Contains(in.Expect, r.Kind) &&
		(strings.HasSuffix(r.Current.Site.Function(), in.Where) || strings.HasSuffix(r.Previous.Site.Function(), in.Where))
}

// assertVerdict checks reports rs against the kinds want of a clean
// configuration: none if want is empty, else at least one, each of a kind
// in want.
func assertVerdict(t *testing.T, want []race.Kind, rs []race.Report) {
	t.Helper()
	if len(want) == 0 {
		assert.Empty(t, rs, "false positives")
		return
	}
	assert.NotEmpty(t, rs, "the Exact family's race (want one of %v)", want)
	for _, r := range rs {
		assert.Contains(t, want, r.Kind, "a report of an unexpected kind:\n%v", r)
	}
}
