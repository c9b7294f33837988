package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/gen"
)

// TestGenerateIsDeterministic: a seed gives one kernel, and seeds give
// different kernels.
func TestGenerateIsDeterministic(t *testing.T) {
	distinct := map[string]bool{}
	for s := range uint64(50) {
		a, b := gen.Generate(s).String(), gen.Generate(s).String()
		assert.Equal(t, a, b, "seed %d", s)
		distinct[a] = true
	}
	assert.Len(t, distinct, 50, "every seed should give its own kernel")
}

// TestGenerateShapes: every kernel fits the documented bounds and prints
// one line per statement.
func TestGenerateShapes(t *testing.T) {
	for s := range uint64(500) {
		k := gen.Generate(s)
		require.GreaterOrEqual(t, k.Blocks, 1, "seed %d", s)
		require.LessOrEqual(t, k.Blocks, 3, "seed %d", s)
		require.GreaterOrEqual(t, k.Threads, 1, "seed %d", s)
		require.LessOrEqual(t, k.Threads, 64, "seed %d", s)
		require.NotEmpty(t, k.Body, "seed %d", s)
		assert.Len(t, strings.Split(strings.TrimSpace(k.String()), "\n"), len(k.Body)+1, "seed %d: one line per statement", s)
	}
}

// TestKernelsTerminate runs generated kernels with no observer under every
// executor: each must finish without error, whatever the interleaving.
func TestKernelsTerminate(t *testing.T) {
	n := uint64(200)
	if testing.Short() {
		n = 50
	}
	for _, e := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for s := range n {
			d, err := gpu.NewDevice(gpu.DeviceConfig{})
			require.NoError(t, err)
			k := gen.Generate(s)
			cfg := gpu.Config{Executor: e, Schedule: gpu.ScheduleRandom, Seed: s, Timeout: gen.Timeout}
			require.NoError(t, k.Launch(context.Background(), d, cfg), "%v, seed %d:\n%v", e, s, k)
		}
	}
}
