package kernels_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// TestTrials checks the search's order: the default schedule, then
// random ones seeded 1, 2, ...
func TestTrials(t *testing.T) {
	require.Empty(t, kernels.Trials(0))
	ts := kernels.Trials(3)
	require.Equal(t, []kernels.Trial{{Schedule: gpu.ScheduleDefault}, {Schedule: gpu.ScheduleRandom, Seed: 1}, {Schedule: gpu.ScheduleRandom, Seed: 2}}, ts)
	require.Equal(t, "default, random seeds 1-2", kernels.TrialsString(ts))
	require.Equal(t, "default, random seed 1", kernels.TrialsString(ts[:2]))
	require.Equal(t, "random seeds 1 3", kernels.TrialsString([]kernels.Trial{ts[1], {Schedule: gpu.ScheduleRandom, Seed: 3}}))
}

// TestTrialApply: a trial makes a fibers launch deterministic, and only
// orders a goroutines launch, which cannot be.
func TestTrialApply(t *testing.T) {
	cfg := gpu.LaunchConfig{Executor: gpu.Fibers}
	kernels.Trial{Schedule: gpu.ScheduleRandom, Seed: 7}.Apply(&cfg)
	require.True(t, cfg.Deterministic)
	require.Equal(t, gpu.ScheduleRandom, cfg.Schedule)
	require.Equal(t, uint64(7), cfg.Seed)
	cfg = gpu.LaunchConfig{Executor: gpu.Goroutines}
	kernels.Trial{Schedule: gpu.ScheduleRandom, Seed: 7}.Apply(&cfg)
	require.False(t, cfg.Deterministic)
}

// TestExposeStops: the search stops at the first trial that finds the
// race, runs every trial of its bound when none does, and stops at an
// error, naming the trial.
func TestExposeStops(t *testing.T) {
	ran, found, err := kernels.Expose(5, func(tr kernels.Trial) (bool, error) { return tr.Seed == 2, nil })
	require.NoError(t, err)
	require.True(t, found)
	require.Len(t, ran, 3)
	ran, found, err = kernels.Expose(5, func(kernels.Trial) (bool, error) { return false, nil })
	require.NoError(t, err)
	require.False(t, found)
	require.Len(t, ran, 5)
	ran, _, _ = kernels.Expose(0, func(kernels.Trial) (bool, error) { return false, nil })
	require.Len(t, ran, kernels.ExposeBound)
	boom := errors.New("boom")
	ran, found, err = kernels.Expose(5, func(tr kernels.Trial) (bool, error) { return false, boom })
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "schedule default")
	require.False(t, found)
	require.Len(t, ran, 1)
}

// TestTrialReplays runs the tree search's cross-block steal injection
// under one trial twice: both runs must report the same races, to the
// sites and threads. That is what makes the injection tests immune to
// load: a trial's interleaving is the kernel's, the schedule's and the
// seed's alone, so the race the steal exposes shows whenever the trial
// runs, however the Go scheduler runs the launch's goroutines.
func TestTrialReplays(t *testing.T) {
	k, ok := kernels.All().Lookup("scor/uts")
	require.True(t, ok)
	tr := kernels.Trial{Schedule: gpu.ScheduleRandom, Seed: 3}
	var got []string
	for range 2 {
		det := race.New(race.Options{History: true})
		launchErr, _ := run(t, k, "steal-top-block-exch", gpu.Fibers, det, tr.Apply)
		require.NoError(t, launchErr)
		s := ""
		for _, r := range det.Reports() {
			s += r.String()
		}
		got = append(got, s)
	}
	require.NotEmpty(t, got[0])
	require.Equal(t, got[0], got[1])
}
