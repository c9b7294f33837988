package racetest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// twoRaces races twice: a block-scope atomic across blocks on x[0], and a
// missing device fence on x[1].
func twoRaces(t *testing.T) (*gpu.Device, gpu.LaunchConfig, gpu.Kernel) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	x := gpu.Alloc[int32](d, "x", 2)
	return d, gpu.LaunchConfig{Name: "racy", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}, func(t *gpu.Thread) {
		x.AtomicAdd(t, 0, 1, scope.Block)
		x.Store(t, 1, 1)
	}
}

// TestEnvironment sets WARPGUARD, so it runs alone (t.Setenv).
func TestEnvironment(t *testing.T) {
	log := filepath.Join(t.TempDir(), "races")
	t.Setenv(race.EnvVar, "max_reports=1 history=0 log_path="+log)
	d, cfg, k := twoRaces(t)
	rec := record(t)
	racetest.Launch(rec, d, cfg, k)
	require.Len(t, rec.errs, 2, "one report, then how many were not shown")
	require.Contains(t, rec.errs[0], "an unrecorded site", "history=0: the previous site is unknown")
	require.Contains(t, rec.errs[1], "1 more race not shown")
	text, err := os.ReadFile(fmt.Sprintf("%s.%d", log, os.Getpid()))
	require.NoError(t, err)
	require.Equal(t, rec.errs[0]+"\n", string(text), "the log holds the reports")

	rec = record(t)
	racetest.Launch(rec, d, cfg, k, racetest.MaxReports(5), racetest.History(true))
	require.Len(t, rec.errs, 2, "options in code win over the environment")
	require.NotContains(t, rec.errs[0], "an unrecorded site")

	t.Setenv(race.EnvVar, "halt_on_error=1 history=2")
	rec = record(t)
	rec.run(func() { racetest.Launch(rec, d, cfg, k) })
	require.Len(t, rec.errs, 1)
	require.Contains(t, rec.errs[0], `history="2": want 0 or 1`)

	// Threads writing their own byte of dynamic shared memory share a
	// 4-byte granule by default, and are reported; granularity=1 checks
	// each byte apart.
	bytes := gpu.LaunchConfig{Name: "bytes", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, DynamicShared: 64}
	own := func(t *gpu.Thread) { gpu.DynamicShared[uint8](t).Store(t, t.ThreadRank(), 1) }
	for env, reported := range map[string]bool{"": true, "granularity=1": false} {
		t.Setenv(race.EnvVar, env)
		rec = record(t)
		racetest.Launch(rec, d, bytes, own)
		require.Equal(t, reported, len(rec.errs) > 0, "WARPGUARD=%q: %v", env, rec.errs)
	}
}

// TestHaltOnFirstOption: HaltOnFirst stops the launch at its first race.
func TestHaltOnFirstOption(t *testing.T) {
	t.Parallel()
	d, cfg, k := twoRaces(t)
	rec := record(t)
	racetest.Launch(rec, d, cfg, k, racetest.HaltOnFirst())
	require.Len(t, rec.errs, 1, "the launch stopped at its first race, and the halt is no error of its own")
}

// TestOptionsReplaceTheDetectorsOptions: Options replaces the defaults,
// history included.
func TestOptionsReplaceTheDetectorsOptions(t *testing.T) {
	t.Parallel()
	d, cfg, k := twoRaces(t)
	rec := record(t)
	racetest.Launch(rec, d, cfg, k, racetest.Options(race.Options{MaxReports: 1}))
	require.Len(t, rec.errs, 2)
	require.Contains(t, rec.errs[0], "an unrecorded site", "race.Options' zero value has no history")
}

// TestFamily: racetest's detector is of the Exact family by default;
// Family picks the IGUARD family, which passes a reader that never
// acquires what the writer's fence published, and family=iguard in
// WARPGUARD does the same.
func TestFamily(t *testing.T) {
	published := func(t *testing.T) (*gpu.Device, gpu.LaunchConfig, gpu.Kernel) {
		d, err := gpu.NewDevice(gpu.DeviceConfig{})
		require.NoError(t, err)
		data, flag := gpu.Alloc[int32](d, "data", 1), gpu.Alloc[int32](d, "flag", 1)
		return d, gpu.LaunchConfig{Name: "published", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Cooperative: true}, func(t *gpu.Thread) {
			if t.BlockRank() == 0 {
				data.Store(t, 0, 1)
				t.ThreadFence()
				flag.AtomicStore(t, 0, 1, scope.Device)
				return
			}
			for flag.AtomicLoad(t, 0, scope.Device) == 0 {
			}
			data.Load(t, 0) // no acquire: a race by the model
		}
	}
	d, cfg, k := published(t)
	rec := record(t)
	racetest.Launch(rec, d, cfg, k)
	require.Len(t, rec.errs, 1, "the default, Exact, reports the missing acquire")
	require.Contains(t, rec.errs[0], "acquired nothing after reading")
	d, cfg, k = published(t)
	rec = record(t)
	racetest.Launch(rec, d, cfg, k, racetest.Family(race.IGUARD))
	require.Empty(t, rec.errs, "the IGUARD family takes the writer's fence as publishing")
	t.Setenv(race.EnvVar, "family=iguard")
	d, cfg, k = published(t)
	rec = record(t)
	racetest.Launch(rec, d, cfg, k)
	require.Empty(t, rec.errs, "family=iguard")
}
