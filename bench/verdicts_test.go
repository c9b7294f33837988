package bench_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/internal/isolate"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// A verdict is what runs reported: the set of races as (kind, both
// sites' file:line), the sites in file order, since which side of a pair
// is the current one depends on which thread came second.
type verdict map[string]bool

func (v verdict) String() string { return strings.Join(slices.Sorted(maps.Keys(v)), "; ") }

// addRun runs c under a detector with options opt and adds its races to
// v, reporting whether the run reported any. Every report must be of a
// kind the configuration expects, at its injected code: no configuration
// may report a race the suite does not hold there. Without history a
// report names no previous site, and only a current site that is not
// at the injected code fails that test.
func (v verdict) addRun(t *testing.T, c bench.Case, opt race.Options) bool {
	t.Helper()
	r := bench.Once(context.Background(), c, race.New(opt))
	require.NoError(t, r.LaunchErr, "%s [%s]", c.Kernel.Name, c.Inject)
	expect, where := c.Kernel.Expected(c.Inject), ""
	if in, ok := c.Kernel.Injection(c.Inject); ok {
		where = in.Where
	}
	for _, rep := range r.Reports {
		at := where == "" || strings.HasSuffix(rep.Current.Site.Function(), where) || strings.HasSuffix(rep.Previous.Site.Function(), where) ||
			!opt.History && rep.Previous.Site.IsZero()
		assert.True(t, slices.Contains(expect, rep.Kind) && at, "unexpected report under %+v:\n%v", opt, rep)
		a := fmt.Sprintf("%s:%d", filepath.Base(rep.Current.Site.File()), rep.Current.Site.Line())
		b := fmt.Sprintf("%s:%d", filepath.Base(rep.Previous.Site.File()), rep.Previous.Site.Line())
		if b < a {
			a, b = b, a
		}
		v[fmt.Sprintf("%v %s/%s", rep.Kind, a, b)] = true
	}
	return len(r.Reports) > 0
}

// TestConfigsSameVerdicts runs every kernel of the suite, clean and with
// each injection, under every configuration of the IGUARD family and opt
// with the
// mutex and striped locking disciplines, and compares the races each
// reports with those of the unoptimized "plain" detector with full
// entries from the first touch (Options.FullEntries): no contention
// optimization, locking discipline or central checker may change a
// verdict. Every report of every run must be of an expected kind at the
// injected code, and a clean kernel must get none.
//
// Those runs keep history, for reports that name both sites, and history
// gives every granule its entry at once. So plain and opt run again
// without history, against plain:full without history: first records,
// and the per-memory choice a detector learns over a kernel's launches
// (density.go), may not change a verdict either.
//
// A racy run reports the pairs its interleaving exposes: which access a
// word's metadata holds when the racing one comes differs from run to run
// under any configuration (two runs of plain itself disagree on the
// work-stealing kernels). So the test compares verdicts over unions of
// runs: both configurations report races or neither, and when both do,
// they share a kind. Until that holds, both run again, adding to their
// unions, up to five runs each. A race one side never saw in five runs is
// logged, not failed, on an injected configuration: UTS's lock races need
// a steal to meet a push at a lock.
//
// Only with the long build tag (go test -tags long, as CI runs it) do all
// the injections run, and opt with other locking disciplines; otherwise,
// and with -short, only the clean configurations and the contention
// kernels' injections do; under
// -race -short, only opt without history against its reference. The race
// runtime's memory grows with every launch (7 GB for two lib kernels
// under every configuration), and the whole suite under every
// configuration outgrew this project's 24 GB machine.
func TestConfigsSameVerdicts(t *testing.T) {
	var cs []bench.Case
	var groups []string
	for _, c := range bench.Configs(suiteKernels(), kernels.Default, 1) {
		if (!long || testing.Short()) && c.Inject != "" && !strings.HasPrefix(c.Kernel.Name, "contention/") {
			continue
		}
		cs = append(cs, c)
		if !slices.Contains(groups, c.Kernel.Name) {
			groups = append(groups, c.Kernel.Name)
		}
	}
	if isolate.Groups(t, groups) {
		return
	}
	for _, c := range cs {
		t.Run(c.Kernel.Name+"/"+c.Inject, func(t *testing.T) {
			t.Parallel()
			for _, history := range []bool{true, false} {
				plain, _ := race.Config("plain")
				plain.FullEntries, plain.History = true, history
				names := comparedConfigs(history)
				if len(names) == 0 {
					continue
				}
				want := verdict{}
				want.addRun(t, c, plain)
				if c.Inject == "" && !c.Kernel.Racy {
					require.Empty(t, want, "plain:full reports races on a clean kernel")
				}
				for _, name := range names {
					opt, err := race.Config(name)
					require.NoError(t, err)
					opt.History = history
					sameVerdict(t, c, fmt.Sprintf("%s (history %v)", name, history), opt, plain, want)
				}
			}
		})
	}
}

// comparedConfigs returns the configurations TestConfigsSameVerdicts
// compares with plain:full, with history or without.
func comparedConfigs(history bool) []string {
	switch {
	case raceEnabled && testing.Short():
		if history {
			return nil
		}
		return []string{"opt"}
	case !history:
		return []string{"plain", "opt"}
	case !long || testing.Short():
		return defaultModeConfigs()
	}
	return append(defaultModeConfigs(), "opt:mutex", "opt:striped")
}

// defaultModeConfigs returns the configurations of the IGUARD family,
// which must agree with each other; the Exact family has verdicts of its
// own (kernels.Entry.ExpectedIn), which the suite checks.
func defaultModeConfigs() []string {
	return slices.DeleteFunc(race.Configs(), func(n string) bool {
		o, _ := race.Config(n)
		return o.Off || o.Exact()
	})
}

// sameVerdict compares configuration name with plain on c, whose union
// so far is want; it adds plain's further runs to want. Where both sides
// found races, but of no kind in common, it runs each side up to
// kindRuns more times: on an injection with two expected kinds (the
// work-stealing kernels' scoped atomics, which a run may expose as a
// scoped-atomic pair or an improper-locking one), which kind a run
// reports depends on its interleaving, and five runs of each side have
// shown one kind each.
func sameVerdict(t *testing.T, c bench.Case, name string, opt, plain race.Options, want verdict) {
	t.Helper()
	got := verdict{}
	for i := range 5 {
		got.addRun(t, c, opt)
		if i > 0 {
			want.addRun(t, c, plain)
		}
		if agree(got, want) {
			return
		}
	}
	for i := 0; i < kindRuns && len(got) > 0 && len(want) > 0; i++ {
		got.addRun(t, c, opt)
		want.addRun(t, c, plain)
		if agree(got, want) {
			return
		}
	}
	if (len(got) == 0) != (len(want) == 0) && (c.Inject != "" || c.Kernel.Racy) {
		t.Logf("%s: a race one side never saw in five runs: %s {%v}; plain:full {%v}", c.Inject, name, got, want)
		return
	}
	assert.Fail(t, "verdicts differ", "%s reports {%v}; plain:full reports {%v}", name, got, want)
}

// kindRuns is how many more runs of each side sameVerdict makes when
// both found races of no kind in common.
const kindRuns = 5

// agree reports whether two unions of races give the same verdict: no
// race on either side, or on both sides a race of a kind both report.
// addRun has already checked that every report is of an expected kind at
// the injected code. Which pairs a racy run exposes depends on its
// interleaving (two runs of plain itself disagree on the work-stealing
// kernels), so pairs are shown when verdicts differ, not compared.
func agree(got, want verdict) bool {
	if len(got) == 0 || len(want) == 0 {
		return len(got) == len(want)
	}
	for k := range got.kinds() {
		if want.kinds()[k] {
			return true
		}
	}
	return false
}

// kinds returns the kinds of race in v.
func (v verdict) kinds() map[string]bool {
	ks := map[string]bool{}
	for k := range v {
		kind, _, _ := strings.Cut(k, " ")
		ks[kind] = true
	}
	return ks
}
