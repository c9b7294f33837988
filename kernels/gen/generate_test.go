package gen_test

import (
	"context"
	"fmt"
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
			cfg := gpu.LaunchConfig{Executor: e, Schedule: gpu.ScheduleRandom, Seed: s, Timeout: gen.Timeout}
			require.NoError(t, k.Launch(context.Background(), d, cfg), "%v, seed %d:\n%v", e, s, k)
		}
	}
}

// TestGenerateCoversOrders: the generator emits every memory order
// cuda::atomic_ref offers on read-modify-writes, seq_cst loads and
// stores, both fence kinds, and locks taken and given back with each
// order, so fuzzing and the differential tests exercise them.
func TestGenerateCoversOrders(t *testing.T) {
	seen := map[string]bool{}
	for seed := range uint64(2000) {
		for _, s := range gen.Generate(seed).Body {
			switch s := s.(type) {
			case gen.Access:
				seen[fmt.Sprintf("%d %v", s.Op, s.Order)] = true
			case gen.Fence:
				seen[fmt.Sprintf("fence %v", s.Order)] = true
			case gen.Lock:
				seen[fmt.Sprintf("lock take %v", s.Take)] = true
				if !s.Release {
					seen[fmt.Sprintf("lock give %v", s.Give)] = true
				}
			}
		}
	}
	for _, want := range []string{"fence seq_cst", "fence acq_rel", fmt.Sprintf("%d seq_cst", gen.Load), fmt.Sprintf("%d seq_cst", gen.Store)} {
		require.True(t, seen[want], "no %s in 2000 kernels", want)
	}
	for _, o := range []gpu.Order{gpu.Relaxed, gpu.Acquire, gpu.Release, gpu.AcqRel, gpu.SeqCst} {
		require.True(t, seen[fmt.Sprintf("lock take %v", o)], "no lock taken %v in 2000 kernels", o)
		require.True(t, seen[fmt.Sprintf("lock give %v", o)], "no lock given back %v in 2000 kernels", o)
	}
	for _, op := range []gen.Op{gen.Add, gen.Exch, gen.CAS} {
		for _, o := range []gpu.Order{gpu.Relaxed, gpu.Acquire, gpu.Release, gpu.AcqRel, gpu.SeqCst} {
			require.True(t, seen[fmt.Sprintf("%d %v", op, o)], "no op %d %v in 2000 kernels", op, o)
		}
	}
}
