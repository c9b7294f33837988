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

func TestGenerateIsDeterministic(t *testing.T) {
	distinct := map[string]bool{}
	for s := range uint64(50) {
		a, b := gen.Generate(s).String(), gen.Generate(s).String()
		assert.Equal(t, a, b, "seed %d", s)
		distinct[a] = true
	}
	assert.Len(t, distinct, 50, "every seed should give its own kernel")
}

func TestGenerateShapes(t *testing.T) {
	for s := range uint64(500) {
		k := gen.Generate(s)
		require.GreaterOrEqual(t, k.Blocks, 1)
		require.LessOrEqual(t, k.Blocks, 3)
		require.GreaterOrEqual(t, k.Threads, 1)
		require.LessOrEqual(t, k.Threads, 64)
		require.NotEmpty(t, k.Body)
		assert.Len(t, strings.Split(strings.TrimSpace(k.String()), "\n"), len(k.Body)+1, "one line per statement")
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

func TestWordName(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	g := gpu.Alloc[uint32](d, "g", 8).Memory()
	assert.Equal(t, "x[3]", gen.WordName(g, 3))
	assert.Equal(t, "f[1]", gen.WordName(g, 5))
	assert.Equal(t, "l[0]", gen.WordName(g, 6))
	shared := &gpu.Memory{Name: "s", Space: gpu.SharedSpace, Block: 2}
	assert.Equal(t, "s[1] of block 2", gen.WordName(shared, 1))
}
