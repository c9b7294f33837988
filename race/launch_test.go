package race_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// TestHugeGrid: a grid of 2^31-1 blocks of 32 under the detector starts
// at once and runs until its deadline, in memory bounded by its resident blocks:
// the detector allocates nothing per grid block or thread up front, and
// keeps nothing of an ended block but the device fences of threads that
// made one.
func TestHugeGrid(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 1024)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	det := race.New(race.Options{Family: race.IGUARD})
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	err := d.Launch(ctx, gpu.LaunchConfig{Name: "huge", Grid: gpu.Dim3{X: 1<<31 - 1}, Block: gpu.Dim3{X: 32}, Observer: det},
		func(t *gpu.Thread) {
			i := t.GlobalID() % x.Len()
			x.Store(t, i, x.Load(t, i)+1)
			t.Fence(scope.Device)
		})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, int64(after.HeapInuse)-int64(before.HeapInuse), int64(256<<20), "heap growth")
}

// TestTooManyThreads: precise mode refuses a launch of more than 2^30
// threads, which its epochs could not name, before any thread runs, with
// an error that says why; 2^30 threads run.
func TestTooManyThreads(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	det := race.New(race.Options{Family: race.IGUARD, Precise: true})
	var ran atomic.Bool
	err := d.Launch(context.Background(), gpu.LaunchConfig{Name: "big", Grid: gpu.Dim3{X: 1<<25 + 1}, Block: gpu.Dim3{X: 32}, Observer: det},
		func(*gpu.Thread) { ran.Store(true) })
	require.ErrorContains(t, err, `race: launch "big" has 1073741856 threads (33554433 blocks of 32); the exact family names threads in 31 bits, two keys each, and accepts at most 1073741824`)
	assert.False(t, ran.Load(), "no thread may run")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = d.Launch(ctx, gpu.LaunchConfig{Name: "most", Grid: gpu.Dim3{X: 1 << 25}, Block: gpu.Dim3{X: 32}, Observer: det},
		func(*gpu.Thread) {})
	require.ErrorIs(t, err, context.DeadlineExceeded)
}
