package race_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
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

// TestPreciseReusesShadowAcrossDevices: a device made after another one
// closed (a device per test, or per run) finds the last device's shadow,
// whose pages lie where its own buffers do, and checks nothing against
// what the last device's launch left there: a clean launch reading what
// another thread of the earlier device wrote is no race, and a race of
// its own is still found.
func TestPreciseReusesShadowAcrossDevices(t *testing.T) {
	t.Parallel()
	const n = 4096
	det := race.New(race.Options{})
	launch := func(d *gpu.Device, buf gpu.Buffer[int32], k gpu.Kernel) {
		t.Helper()
		cfg := gpu.LaunchConfig{Name: "devices", Grid: gpu.Dim3{X: n / 256}, Block: gpu.Dim3{X: 256}, Observer: det}
		require.NoError(t, d.Launch(context.Background(), cfg, k))
	}
	reused := false
	for range 5 {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", n)
		before := det.Stats().Pages
		launch(d, buf, func(th *gpu.Thread) { _ = buf.Load(th, (th.GlobalID()+1)%n) })
		reused = reused || det.Stats().Pages == before && before > 0
		launch(d, buf, func(th *gpu.Thread) { buf.Store(th, th.GlobalID(), 1) })
		d.Close()
	}
	require.Empty(t, det.Reports(), "a device's launch raced with an earlier device's")
	assert.True(t, reused, "no device reused an earlier one's shadow")
	d := newDevice(t)
	buf := gpu.Alloc[int32](d, "buf", n)
	launch(d, buf, func(th *gpu.Thread) {
		if th.GlobalID() < 2 {
			buf.Store(th, 0, int32(th.GlobalID()))
		}
	})
	require.Len(t, det.Reports(), 1, "the race of the last device's launch")
}

// TestPreciseReusesSharedShadows: a block's shared memory's shadow serves
// the launch's next block, and the next launch's blocks, emptied: a grid
// of many blocks whose threads read a neighbour's shared element after a
// barrier is clean launch after launch, under each executor, though each
// block's threads check in pages and sets that another block's filled;
// one block that skips the barrier is reported, and only its threads; and
// the later launches make fewer shadow pages than the first (unless the
// collector reclaimed the spares between launches, so one of a few tries
// must show it).
func TestPreciseReusesSharedShadows(t *testing.T) {
	t.Parallel()
	const blocks, threads = 64, 64
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			t.Parallel()
			det := race.New(race.Options{})
			d := newDevice(t)
			out := gpu.Alloc[int32](d, "out", blocks*threads)
			neighbours := func(racy int) gpu.Kernel {
				return func(th *gpu.Thread) {
					s := gpu.Shared[int32](th, "s", threads)
					s.AtomicAdd(th, th.ThreadRank(), int32(th.BlockRank()), scope.Block)
					if th.BlockRank() != racy {
						th.SyncThreads()
					}
					out.Store(th, th.GlobalID(), s.Load(th, (th.ThreadRank()+1)%threads))
				}
			}
			launch := func(k gpu.Kernel) uint64 {
				t.Helper()
				before := det.Stats().Pages
				cfg := gpu.LaunchConfig{Name: "shared", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}, Executor: ex, Observer: det}
				require.NoError(t, d.Launch(context.Background(), cfg, k))
				return det.Stats().Pages - before
			}
			first := launch(neighbours(-1))
			fewer := false
			for range 3 {
				fewer = fewer || launch(neighbours(-1)) < first
			}
			require.Empty(t, det.Reports(), "a block checked against another's records")
			assert.True(t, fewer, "no launch reused the shadows of the one before (%d pages in the first)", first)
			launch(neighbours(37))
			require.NotEmpty(t, det.Reports(), "the racy block's races")
			for _, r := range det.Reports() {
				assert.Equal(t, 37, r.Current.BlockID, "%v", r)
				assert.Equal(t, 37, r.Previous.BlockID, "%v", r)
			}
		})
	}
}

// TestPreciseSmuggledSharedMemory: a thread that accesses another block's
// shared array, whose block may be running or gone, checks in that
// block's shadow or in a fresh one, never in a shadow handed on to a
// later block: the launch returns, and `go test -race` sees no race in
// the detector's own memory. The window in which a shadow handed on
// would be shared is narrow (a lookup just before the block ends), so a
// run that passes shows the path safe, not the window closed: the
// foreign mark, under the engine's mutex, closes it.
func TestPreciseSmuggledSharedMemory(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		det := race.New(race.Options{})
		d := newDevice(t)
		var smuggled atomic.Pointer[gpu.Buffer[int32]]
		cfg := gpu.LaunchConfig{Name: "smuggle", Grid: gpu.Dim3{X: 32}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: det}
		require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
			s := gpu.Shared[int32](th, "s", 32)
			s.Store(th, th.ThreadRank(), 1)
			if th.BlockRank() == 0 && th.ThreadRank() == 0 {
				smuggled.Store(&s)
			}
			for i := range 50 {
				if p := smuggled.Load(); p != nil && th.BlockRank()%2 == 1 {
					p.Store(th, (th.ThreadRank()+i)%32, 2)
				}
			}
		}), ex.String())
	}
}

// TestPreciseSpareBlocksAcrossShapes: launches of different grids and
// block sizes, one after another and overlapping on one detector, each
// start with the block states an earlier one left (a launch of fewer
// blocks taking part of a batch, one of another block size only its
// shared memory's shadows); a clean kernel that stages its block's
// elements in shared memory behind a barrier is reported by none, and
// each computes its sums right, under both executors.
func TestPreciseSpareBlocksAcrossShapes(t *testing.T) {
	t.Parallel()
	shapes := []struct{ blocks, threads int }{{64, 32}, {1, 32}, {3, 64}, {64, 64}, {2, 32}}
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			t.Parallel()
			det := race.New(race.Options{})
			d := newDevice(t)
			launch := func(blocks, threads int) error {
				out := gpu.Alloc[int32](d, "out", blocks*threads)
				cfg := gpu.LaunchConfig{Name: "staged", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}, Executor: ex, Observer: det}
				err := d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
					s := gpu.Shared[int32](th, "s", threads)
					s.Store(th, th.ThreadRank(), int32(th.GlobalID()))
					th.SyncThreads()
					out.Store(th, th.GlobalID(), s.Load(th, th.ThreadRank())+s.Load(th, (th.ThreadRank()+1)%threads))
				})
				if err != nil {
					return err
				}
				for g, v := range out.Host() {
					next := g - g%threads + (g%threads+1)%threads
					if v != int32(g+next) {
						return fmt.Errorf("out[%d] = %d, want %d", g, v, g+next)
					}
				}
				return nil
			}
			for range 3 {
				for _, s := range shapes {
					require.NoError(t, launch(s.blocks, s.threads))
				}
			}
			var g errgroup.Group
			for i := range 4 * len(shapes) {
				s := shapes[i%len(shapes)]
				g.Go(func() error { return launch(s.blocks, s.threads) })
			}
			require.NoError(t, g.Wait())
			assert.Empty(t, det.Reports())
		})
	}
}
