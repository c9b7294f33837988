package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// TestPreciseReusesShadowAcrossLaunches: launches one after another on
// one device are ordered by host order, so the second's reads of what
// the first wrote, each by another thread, are no race, though its
// threads are numbered as the first's were: a shadow page the next launch
// reuses is emptied before it checks anything. The reused shadow saves
// making its pages again (unless the collector reclaimed it between the
// launches, so one of a few tries must show it), and the metadata is
// uncounted at each launch's end all the same; a race of the later
// launch is still found.
func TestPreciseReusesShadowAcrossLaunches(t *testing.T) {
	t.Parallel()
	const n = 4096
	det := race.New(race.Options{})
	d := newDevice(t)
	buf := gpu.Alloc[int32](d, "buf", n)
	launch := func(k gpu.Kernel) {
		t.Helper()
		cfg := gpu.LaunchConfig{Name: "reuse", Grid: gpu.Dim3{X: n / 256}, Block: gpu.Dim3{X: 256}, Observer: det}
		require.NoError(t, d.Launch(context.Background(), cfg, k))
		require.Zero(t, det.MetadataBytes(), "metadata counted after the launch")
	}
	write := func(th *gpu.Thread) { buf.Store(th, th.GlobalID(), 1) }
	readNext := func(th *gpu.Thread) { _ = buf.Load(th, (th.GlobalID()+1)%n) }
	launch(write)
	made := det.Stats().Pages
	require.NotZero(t, made)
	reused := false
	for range 5 {
		before := det.Stats().Pages
		launch(readNext)
		launch(write)
		reused = reused || det.Stats().Pages == before
	}
	require.Empty(t, det.Reports(), "a launch raced with the one before it")
	assert.True(t, reused, "no launch reused the shadow of the one before")
	launch(func(th *gpu.Thread) {
		if th.GlobalID() < 2 {
			buf.Store(th, 0, int32(th.GlobalID()))
		}
	})
	require.Len(t, det.Reports(), 1, "the race of the last launch")
}
