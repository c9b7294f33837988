package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestGoroutineBarrierAllocatesNothingPerRound: under the Goroutines
// executor a block of 256 threads running 4 and 260 barrier rounds
// allocates about as much: a round wakes its waiters on their own
// channels, kept with their states, where it made a channel per round.
func TestGoroutineBarrierAllocatesNothingPerRound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	d := newDevice(t)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 256}, Executor: gpu.Goroutines}
	allocs := func(rounds int) float64 {
		k := func(t *gpu.Thread) {
			for range rounds {
				t.SyncThreads()
			}
		}
		return testing.AllocsPerRun(10, func() { require.NoError(t, d.Launch(context.Background(), cfg, k)) })
	}
	few, many := allocs(4), allocs(260)
	// The Go scheduler's own allocations as goroutines block and wake
	// vary with the launch's length: allow fewer than one per 4 rounds.
	require.LessOrEqual(t, many, few+64, "256 more rounds allocated %.0f more objects", many-few)
}
