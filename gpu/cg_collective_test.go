package gpu_test

import (
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestNilOperatorNamesTheKernelLine: a nil operator to a group reduction
// or scan is an error of the calling threads at the kernel's line of the
// call, with no stack dump, not a fault at a line of package gpu.
func TestNilOperatorNamesTheKernelLine(t *testing.T) {
	t.Parallel()
	calls := map[string]func(g gpu.Tile, line *atomic.Int64){
		"reduce": func(g gpu.Tile, line *atomic.Int64) {
			_, _, l, _ := runtime.Caller(0)
			line.Store(int64(l) + 2)
			gpu.Reduce(g, int32(1), nil)
		},
		"inclusive_scan": func(g gpu.Tile, line *atomic.Int64) {
			_, _, l, _ := runtime.Caller(0)
			line.Store(int64(l) + 2)
			gpu.InclusiveScan(g, int32(1), nil)
		},
		"exclusive_scan": func(g gpu.Tile, line *atomic.Int64) {
			_, _, l, _ := runtime.Caller(0)
			line.Store(int64(l) + 2)
			gpu.ExclusiveScan(g, int32(1), nil)
		},
	}
	for name, call := range calls {
		d := newDevice(t)
		var line atomic.Int64
		cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 32}}
		err := d.Launch(t.Context(), cfg, func(t *gpu.Thread) { call(gpu.TiledPartition(t, 32), &line) })
		require.Error(t, err, name)
		var te *gpu.ThreadError
		require.True(t, errors.As(err, &te), "%s: %v", name, err)
		require.Equal(t, int(line.Load()), te.Site.Line(), "%s: the kernel's line", name)
		require.True(t, strings.HasSuffix(te.Site.File(), "cg_collective_test.go"), "%s: %s", name, te.Site.File())
		require.Contains(t, err.Error(), name+" with a nil operator")
		require.NotContains(t, err.Error(), "goroutine ", "%s: no stack dump", name)
	}
}
