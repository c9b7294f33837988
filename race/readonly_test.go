package race_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// roLaunch launches kernel k on d over 4 blocks of 64 threads.
func roLaunch(t *testing.T, d *gpu.Device, ex gpu.Executor, name string, k gpu.Kernel) {
	t.Helper()
	roLaunchBlocks(t, d, ex, name, 4, k)
}

// roLaunchBlocks launches kernel k on d over the blocks of 64 threads.
func roLaunchBlocks(t *testing.T, d *gpu.Device, ex gpu.Executor, name string, blocks int, k gpu.Kernel) {
	t.Helper()
	cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 64}, Executor: ex}
	require.NoError(t, d.Launch(context.Background(), cfg, k))
}

// TestReadOnlyKept: kernels that read through read-only views and write
// elsewhere, of other buffers or of the same buffer outside the view, or
// in launches ordered by host order, keep the promise, and the default
// detector reports nothing; the loads leave no shadow.
func TestReadOnlyKept(t *testing.T) {
	t.Parallel()
	for _, ex := range executors() {
		for _, history := range []bool{false, true} {
			det := race.New(race.Options{History: history})
			d, _ := detectedDevice(t, det, true)
			in, out := gpu.Alloc[int32](d, "in", 512), gpu.Alloc[int32](d, "out", 256)
			roLaunch(t, d, ex, "fill", func(t *gpu.Thread) { in.Store(t, t.GlobalID(), int32(t.GlobalID())) })
			lo := in.Slice(0, 256).ReadOnly()
			roLaunch(t, d, ex, "read", func(t *gpu.Thread) {
				i := t.GlobalID()
				out.Store(t, i, lo.Load(t, i)+lo.Load(t, (i+1)%256))
				in.Store(t, 256+i, 1) // outside the view
			})
			roLaunch(t, d, ex, "rewrite", func(t *gpu.Thread) { in.Store(t, t.GlobalID(), 0) })
			require.Empty(t, det.Reports(), "%v, history %v", ex, history)
			require.Equal(t, int32(1+2), out.Host()[1])
		}
	}
}

// TestReadOnlyLeavesNoShadow: loads through a read-only view record
// nothing, where plain loads of the same elements make the shadow's
// pages; each counts as a check and a repeat.
func TestReadOnlyLeavesNoShadow(t *testing.T) {
	t.Parallel()
	meta := map[bool]int64{}
	for _, ro := range []bool{false, true} {
		det := race.New(race.Options{})
		d, _ := detectedDevice(t, det, true)
		in := gpu.FromHost(d, "in", make([]int32, 1<<14))
		view := in.ReadOnly()
		roLaunch(t, d, gpu.Fibers, "read", func(t *gpu.Thread) {
			for i := t.GlobalID(); i < in.Len(); i += 256 {
				if ro {
					view.Load(t, i)
				} else {
					in.Load(t, i)
				}
			}
		})
		require.Empty(t, det.Reports())
		st := det.Stats()
		meta[ro] = st.PeakMetadata
		if ro {
			require.Equal(t, uint64(1<<14), st.Checks)
			require.Equal(t, uint64(1<<14), st.Repeats)
		}
	}
	require.Positive(t, meta[false])
	require.Zero(t, meta[true], "read-only loads make no shadow")
}

// TestReadOnlyBrokenInLaunch: a write of an element of a view in the
// launch that reads through it breaks the promise, though a barrier
// orders it, whether the write comes before the launch's first load
// through the view or after: the report names both lines.
func TestReadOnlyBrokenInLaunch(t *testing.T) {
	t.Parallel()
	for _, ex := range executors() {
		for _, writeFirst := range []bool{true, false} {
			det, d, in, view := viewed(t, race.Options{History: true}, 64)
			roLaunchBlocks(t, d, ex, "kernel", 1, func(t *gpu.Thread) {
				if writeFirst && t.GlobalID() == 0 {
					in.Store(t, 5, 1) // line A
				}
				t.SyncThreads()
				view.Load(t, t.ThreadRank()) // line B
				t.SyncThreads()
				if !writeFirst && t.GlobalID() == 0 {
					in.Store(t, 5, 1) // line C
				}
			})
			rs := det.Reports()
			name := fmt.Sprintf("%v, write first %v", ex, writeFirst)
			require.Len(t, rs, 1, name)
			r := rs[0]
			require.Equal(t, race.ReadOnlyWritten, r.Kind, name)
			require.Equal(t, "in", r.Mem.Name)
			require.Equal(t, 5, r.Index)
			load, store := r.Current, r.Previous
			if !writeFirst {
				load, store = store, load
			}
			require.Equal(t, gpu.OpLoad, load.Op, name)
			require.Equal(t, gpu.OpStore, store.Op, name)
			require.Contains(t, load.Site.String(), "readonly_test.go", name)
			require.Contains(t, store.Site.String(), "readonly_test.go", name)
			require.NotEqual(t, load.Site.String(), store.Site.String(), name)
			require.Contains(t, r.Evidence, `reads global "in"[0:64] through a read-only view`, name)
			require.Contains(t, r.String(), "read-only-written", name)
		}
	}
}

// TestReadOnlyBrokenAcrossLaunches: a launch that writes an element of a
// view while a launch that reads through it runs (two goroutines, the
// launches overlapping) breaks the promise, whichever side comes first.
func TestReadOnlyBrokenAcrossLaunches(t *testing.T) {
	t.Parallel()
	for _, writeFirst := range []bool{true, false} {
		det, d, in, view := viewed(t, race.Options{}, 8)
		var wrote, read sync.WaitGroup
		wrote.Add(1)
		read.Add(1)
		both := make(chan struct{})
		var started sync.WaitGroup
		started.Add(2)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
		errs := make(chan error, 2)
		// start launches body as name on its own goroutine; both launches'
		// threads start before either runs body.
		start := func(name string, body gpu.Kernel) {
			c := cfg
			c.Name = name
			go func() {
				errs <- d.Launch(context.Background(), c, func(t *gpu.Thread) {
					started.Done()
					<-both
					body(t)
				})
			}()
		}
		start("reader", func(t *gpu.Thread) {
			if writeFirst {
				wrote.Wait()
			}
			view.Load(t, 3)
			read.Done()
		})
		start("writer", func(t *gpu.Thread) {
			if !writeFirst {
				read.Wait()
			}
			in.Store(t, 3, 7)
			wrote.Done()
		})
		started.Wait()
		close(both)
		require.NoError(t, <-errs)
		require.NoError(t, <-errs)
		rs := det.Reports()
		require.Len(t, rs, 1, "write first %v", writeFirst)
		require.Equal(t, race.ReadOnlyWritten, rs[0].Kind)
		require.ElementsMatch(t, []string{"reader", "writer"}, []string{rs[0].Launch, rs[0].Previous.Launch})
	}
}

// TestReadOnlyBrokenByHost: a host copy into a view while a launch reads
// through it breaks the promise, before the launch's first load or after.
func TestReadOnlyBrokenByHost(t *testing.T) {
	t.Parallel()
	for _, hostFirst := range []bool{true, false} {
		det, d, in, view := viewed(t, race.Options{}, 4)
		load := func(t *gpu.Thread) { view.Load(t, 1) }
		none := func(*gpu.Thread) {}
		before, after := load, none
		if hostFirst {
			before, after = none, load
		}
		duringLaunch(t, d, before, after, func() { require.NoError(t, in.CopyIn([]int32{1, 2, 3, 4})) })
		rs := det.Reports()
		require.Len(t, rs, 1, "host first %v", hostFirst)
		require.Equal(t, race.ReadOnlyWritten, rs[0].Kind)
		require.True(t, rs[0].Current.Host || rs[0].Previous.Host, "one side is the host's: %v", rs[0])
	}
}

// TestReadOnlyIGUARD: the IGUARD family checks a load through a view as a
// load: a race with it gets the family's kind, and a kernel that keeps
// the promise is clean.
func TestReadOnlyIGUARD(t *testing.T) {
	t.Parallel()
	det, d, in, view := viewed(t, race.Options{Family: race.IGUARD}, 256)
	roLaunch(t, d, gpu.Fibers, "kernel", func(t *gpu.Thread) {
		if t.GlobalID() == 0 {
			in.Store(t, 100, 1)
		}
		view.Load(t, t.GlobalID())
	})
	rs := det.Reports()
	require.NotEmpty(t, rs)
	require.NotEqual(t, race.ReadOnlyWritten, rs[0].Kind)
}

// viewed returns a detector with options opt, a device it observes, a
// buffer of n elements on it named "in" and the buffer's read-only view.
func viewed(t *testing.T, opt race.Options, n int) (*race.Detector, *gpu.Device, gpu.Buffer[int32], gpu.ReadOnly[int32]) {
	t.Helper()
	det := race.New(opt)
	d, _ := detectedDevice(t, det, true)
	in := gpu.Alloc[int32](d, "in", n)
	return det, d, in, in.ReadOnly()
}
