package kernels_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
)

// TestMicrosRun runs every ScoR microbenchmark with no detector on each
// executor: it must finish (its spin loops make progress) and pass its
// output check. Package race's tests judge the verdicts.
func TestMicrosRun(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range kernels.Micros() {
		require.True(t, strings.HasPrefix(k.Name, "micro/race_") && k.Racy ||
			strings.HasPrefix(k.Name, "micro/norace_") && !k.Racy && k.Expect == nil, k.Name)
		require.False(t, seen[k.Name], "duplicate %s", k.Name)
		seen[k.Name] = true
		require.NotEmpty(t, k.Doc)
		for _, e := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
			d, err := gpu.NewDevice(gpu.DeviceConfig{})
			require.NoError(t, err)
			run, err := k.Setup(d, kernels.Params{})
			require.NoError(t, err)
			require.NoError(t, run.Launch(context.Background(), func(ctx context.Context, cfg gpu.LaunchConfig, kern gpu.Kernel) error {
				cfg.Executor = e
				return d.Launch(ctx, cfg, kern)
			}), "%s on %v", k.Name, e)
			require.NoError(t, run.Check(), "%s on %v", k.Name, e)
		}
		_, err := k.Setup(nil, kernels.Params{Inject: "x"})
		require.Error(t, err, "micros have no injections")
	}
	require.Len(t, seen, 32)
}
