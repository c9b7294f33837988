package difftest_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/kernels/gen"
	"github.com/warpguard/warpguard/kernels/gen/difftest"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// exactConfig is the configuration the differential tests hold to the
// oracle, the default (the Exact family, once named precise): it must
// agree on every granule of every kernel.
const exactConfig = "exact"

// needConfig skips the test unless race.Config knows name.
func needConfig(t *testing.T, name string) {
	t.Helper()
	if _, err := race.Config(name); err != nil {
		t.Skipf("no %q detector configuration to compare with the oracle yet: %v", name, err)
	}
}

// seeds returns the size of the fixed range of kernels the deterministic
// tests run: 2,000, or 300 with -short (for -race).
func seeds() uint64 {
	if testing.Short() {
		return 300
	}
	return 2000
}

// TestPreciseAgreesWithOracle holds the default (exact) to the oracle on a
// fixed range of generated kernels, granule by granule, deterministically
// and in parallel under both executors with at least two processors:
// the oracle judges the execution that happened, whatever the
// interleaving.
func TestPreciseAgreesWithOracle(t *testing.T) {
	needConfig(t, exactConfig)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	for _, e := range difftest.Executions() {
		t.Run(e.String(), func(t *testing.T) {
			for s := range seeds() {
				o, err := difftest.RunUnder(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), exactConfig, e)
				require.NoError(t, err)
				if !o.Agree() {
					t.Errorf("exact and the oracle differ:\n%v", o)
				}
			}
		})
	}
}

// FuzzPrecise holds the default (exact) to the oracle on the kernel and
// schedule the fuzzer's two seeds pick, under the execution the third
// picks (modulo the executions).
func FuzzPrecise(f *testing.F) {
	for s := range uint64(8) {
		f.Add(s, difftest.ScheduleSeed(s), uint8(s))
	}
	f.Fuzz(func(t *testing.T, kernel, sched uint64, ex uint8) {
		needConfig(t, exactConfig)
		e := difftest.Executions()[int(ex)%len(difftest.Executions())]
		o, err := difftest.RunUnder(context.Background(), gen.Generate(kernel), sched, exactConfig, e)
		require.NoError(t, err)
		if !o.Agree() {
			t.Fatalf("exact and the oracle differ:\n%v", o)
		}
	})
}

// TestVerdictsMix runs the fixed range of kernels under the oracle alone:
// every kernel must launch and finish, and both verdicts must be common.
func TestVerdictsMix(t *testing.T) {
	var tl difftest.Tally
	for s := range seeds() {
		o, err := difftest.Run(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), "off")
		require.NoError(t, err)
		tl.Add(o)
	}
	racy := float64(tl.Racy) / float64(tl.Kernels)
	assert.Greater(t, racy, 0.3, "too few racy kernels: %+v", tl)
	assert.Less(t, racy, 0.7, "too few clean kernels: %+v", tl)
}

// TestOffMissesEverything: with no detector, every racing granule is a
// false negative and there is no false positive.
func TestOffMissesEverything(t *testing.T) {
	for s := range uint64(50) {
		o, err := difftest.Run(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), "off")
		require.NoError(t, err)
		assert.Empty(t, o.FalsePositives)
		assert.Len(t, o.FalseNegatives, len(o.Races))
	}
}

// TestEveryGranuleReported: two granules raced by the same statements are
// both reported, since each access runs at its granule's own line.
func TestEveryGranuleReported(t *testing.T) {
	at := func(b int, op gen.Op, i int) gen.Access {
		return gen.Access{Who: gen.Guard{Block: b, Mod: 1}, Op: op, At: gen.Index{Off: i, N: 2}, Scope: scope.Thread}
	}
	k := &gen.Kernel{Blocks: 2, Threads: 1, Data: 2, Shared: 1,
		Body: []gen.Stmt{at(0, gen.Store, 0), at(0, gen.Store, 1), at(1, gen.Load, 0), at(1, gen.Load, 1)}}
	o, err := difftest.Run(context.Background(), k, 1, "opt")
	require.NoError(t, err)
	assert.Len(t, o.Races, 2)
	assert.True(t, o.Agree(), "%v", o)
}

// TestOracleIsStable: one kernel and schedule give one verdict.
func TestOracleIsStable(t *testing.T) {
	for s := range uint64(20) {
		a, err := difftest.Run(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), "off")
		require.NoError(t, err)
		b, err := difftest.Run(context.Background(), gen.Generate(s), difftest.ScheduleSeed(s), "off")
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprint(a.Races), fmt.Sprint(b.Races), "seed %d", s)
	}
}

// TestUnknownConfig: a configuration race.Config does not know is an
// error, not a launch.
func TestUnknownConfig(t *testing.T) {
	_, err := difftest.Run(context.Background(), gen.Generate(0), 0, "no-such-config")
	assert.Error(t, err)
}
