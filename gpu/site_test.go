package gpu_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestSitesPrintRelativeToTheModule: a thread error and a divergence
// error name the kernel's line by its file relative to the module's root, never
// by an absolute path.
func TestSitesPrintRelativeToTheModule(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	wd, err := os.Getwd()
	require.NoError(t, err)
	err = launch1D(d, gpu.Fibers, 1, 1, func(t *gpu.Thread) { x.Store(t, 5, 1) })
	require.ErrorContains(t, err, " at gpu/site_test.go:")
	require.NotContains(t, err.Error(), wd)
	err = launch1D(d, gpu.Fibers, 1, 2, func(t *gpu.Thread) {
		if t.ThreadRank() == 0 {
			t.SyncThreads() // rank 1 exits instead: a divergence
		}
	})
	require.ErrorContains(t, err, " at gpu/site_test.go:")
	require.NotContains(t, err.Error(), wd)
}
