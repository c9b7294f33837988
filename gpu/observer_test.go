package gpu_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// recorder is an Observer that writes every event as a line.
type recorder struct {
	mu     sync.Mutex
	events []string
	sites  bool // record the caller's file:line with each access
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) LaunchStart(g *gpu.Grid) { r.add("start %s %d", g.Name, g.Threads) }
func (r *recorder) LaunchEnd(g *gpu.Grid, err error) {
	r.add("end %s %v", g.Name, err)
}
func (r *recorder) BlockStart(_ *gpu.Grid, b int) { r.add("block %d start", b) }
func (r *recorder) BlockEnd(_ *gpu.Grid, b int)   { r.add("block %d end", b) }
func (r *recorder) Access(t *gpu.Thread, a *gpu.Access) {
	site := ""
	if r.sites {
		c := t.Caller()
		site = fmt.Sprintf(" at %s:%d", filepath.Base(c.File()), c.Line())
	}
	r.add("t%d %v %s[%d] off=%d size=%d %v %v old=%d arg=%d cmp=%d ok=%v%s",
		t.GlobalID(), a.Op, a.Mem.Name, a.Index, a.Offset, a.Size, a.Order, a.Scope, a.Old, a.Arg, a.Cmp, a.Succeeded(), site)
}
func (r *recorder) Fence(t *gpu.Thread, s scope.Scope, o gpu.Order) {
	r.add("t%d fence %v %v", t.GlobalID(), s, o)
}
func (r *recorder) Sync(t *gpu.Thread, s gpu.Sync) {
	r.add("sync %v block %d", s.Kind, s.Block)
}

func TestObserverEvents(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.FromHost(d, "x", []uint32{5, 0})
	rec := &recorder{}
	cfg := gpu.LaunchConfig{Name: "obs", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: rec}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		x.Store(t, 1, x.Load(t, 0))
		t.ThreadFence()
		x.AtomicCAS(t, 0, 5, 9, scope.Block)
		x.AtomicCAS(t, 0, 5, 7, scope.Device)
		x.StoreRelease(t, 1, 3, scope.Device)
		x.LoadVolatile(t, 1)
		t.SyncThreads()
	}))
	want := []string{
		"start obs 1",
		"block 0 start",
		"t0 load x[0] off=0 size=4 weak thread old=5 arg=0 cmp=0 ok=true",
		"t0 store x[1] off=4 size=4 weak thread old=0 arg=5 cmp=0 ok=true",
		"t0 fence device seq_cst",
		"t0 atomicCAS x[0] off=0 size=4 relaxed block old=5 arg=9 cmp=5 ok=true",
		"t0 atomicCAS x[0] off=0 size=4 relaxed device old=9 arg=7 cmp=5 ok=false",
		"t0 store x[1] off=4 size=4 release device old=0 arg=3 cmp=0 ok=true",
		"t0 load x[1] off=4 size=4 volatile system old=3 arg=0 cmp=0 ok=true",
		"sync syncthreads block 0",
		"block 0 end",
		"end obs <nil>",
	}
	require.Equal(t, want, rec.events)
}

func TestObserverSeesEveryAccess(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int64](d, "x", 1)
		rec := &recorder{}
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 3}, Block: gpu.Dim3{X: 50}, Observer: rec, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			x.AtomicAdd(t, 0, 1, scope.Device)
			t.SyncThreads()
		}))
		count := func(prefix string) int {
			return len(slices.DeleteFunc(slices.Clone(rec.events), func(e string) bool { return !strings.Contains(e, prefix) }))
		}
		require.Equal(t, 150, count("atomicAdd"))
		require.Equal(t, 3, count("sync syncthreads"))
		require.Equal(t, 3, count(" start"), "one BlockStart per block")
	})
}

func TestCallerSite(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 2)
	rec := &recorder{sites: true}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 2}, Observer: rec}
	_, _, line, _ := runtime.Caller(0)
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		x.Store(t, t.ThreadRank(), 1)      // line+2
		storeVia(t, x)                     // line+3: the helper's own line is reported
		x.AtomicAdd(t, 0, 1, scope.Device) // line+4
	}))
	_, storeViaLine := runtime.FuncForPC(reflect.ValueOf(storeVia).Pointer()).FileLine(reflect.ValueOf(storeVia).Pointer())
	want := []string{
		fmt.Sprintf("observer_test.go:%d", line+2),
		fmt.Sprintf("observer_test.go:%d", storeViaLine),
		fmt.Sprintf("observer_test.go:%d", line+4),
	}
	var got []string
	for _, e := range rec.events {
		if i := strings.Index(e, " at "); i >= 0 && strings.HasPrefix(e, "t0 ") {
			got = append(got, e[i+4:])
		}
	}
	require.Equal(t, want, got)
}

// storeVia stores through a helper, declared on one line so that the
// function's own line is the store's.
func storeVia(t *gpu.Thread, x gpu.Buffer[int32]) { x.Store(t, 1, 2) }

func TestSiteZero(t *testing.T) {
	t.Parallel()
	var s gpu.Site
	require.True(t, s.IsZero())
	require.Equal(t, "?", s.String())
	require.Empty(t, s.File())
	require.Zero(t, s.Line())
	require.Empty(t, s.Function())
}

// TestSiteInterning: the same source line reached through two call paths
// gives equal Sites; different lines give different ones.
func TestSiteInterning(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 2)
	obs := &siteObserver{}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		storeVia(t, x)
		func() { storeVia(t, x) }()
		x.Store(t, 0, 1)
	}))
	require.Len(t, obs.sites, 3)
	require.Equal(t, obs.sites[0], obs.sites[1], "one line, two call paths")
	require.NotEqual(t, obs.sites[0], obs.sites[2])
}

// siteObserver records the Site of every access; it runs one thread.
type siteObserver struct {
	recorder
	sites []gpu.Site
}

func (o *siteObserver) Access(t *gpu.Thread, _ *gpu.Access) { o.sites = append(o.sites, t.Caller()) }

// memoryAtAccess is an Observer that records, at each store it is told
// of, the value the stored element holds at that moment.
type memoryAtAccess struct {
	buf  gpu.Buffer[uint32]
	seen map[gpu.Order]uint32
}

func (*memoryAtAccess) LaunchStart(*gpu.Grid)                     {}
func (*memoryAtAccess) LaunchEnd(*gpu.Grid, error)                {}
func (*memoryAtAccess) BlockStart(*gpu.Grid, int)                 {}
func (*memoryAtAccess) BlockEnd(*gpu.Grid, int)                   {}
func (*memoryAtAccess) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (*memoryAtAccess) Sync(*gpu.Thread, gpu.Sync)                {}

func (m *memoryAtAccess) Access(_ *gpu.Thread, a *gpu.Access) {
	if a.Op == gpu.OpStore {
		m.seen[a.Order] = m.buf.Host()[a.Index]
	}
}

// TestReleaseReportedBeforeItsStore: a release store reaches the observer
// before its value reaches memory, so no thread can see the value before
// the observer knows of the release; other stores are reported after.
func TestReleaseReportedBeforeItsStore(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[uint32](d, "x", 3)
	obs := &memoryAtAccess{buf: x, seen: map[gpu.Order]uint32{}}
	cfg := gpu.LaunchConfig{Name: "release", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: obs}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		x.StoreRelease(t, 0, 7, scope.Device)
		x.AtomicStore(t, 1, 8, scope.Device)
		x.Store(t, 2, 9)
	}))
	require.Equal(t, map[gpu.Order]uint32{gpu.Release: 0, gpu.Relaxed: 8, gpu.Weak: 9}, obs.seen)
	require.Equal(t, []uint32{7, 8, 9}, x.Host())
}

// waitingStart is an Observer whose LaunchStart of the launch named
// "second" waits for the end of the launch named "first".
type waitingStart struct {
	recorder
	entered, firstEnded chan struct{}
}

func (w *waitingStart) LaunchStart(g *gpu.Grid) {
	w.recorder.LaunchStart(g)
	if g.Name == "second" {
		close(w.entered)
		<-w.firstEnded
	}
}

func (w *waitingStart) LaunchEnd(g *gpu.Grid, err error) {
	w.recorder.LaunchEnd(g, err)
	if g.Name == "first" {
		close(w.firstEnded)
	}
}

// TestLaunchStartMayWait: an Observer's LaunchStart may make its launch
// wait for another launch on the device to end, as package race's does
// for room among overlapping launches: the launch running meanwhile
// starts its blocks and ends, and the waiting launch then runs.
func TestLaunchStartMayWait(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		w := &waitingStart{entered: make(chan struct{}), firstEnded: make(chan struct{})}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		first := make(chan error, 1)
		go func() {
			// Each of first's 64 blocks starts after second's LaunchStart began.
			cfg := gpu.LaunchConfig{Name: "first", Grid: gpu.Dim3{X: 64}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: w}
			first <- d.Launch(ctx, cfg, func(t *gpu.Thread) {
				<-w.entered
				x.AtomicAdd(t, 0, 1, scope.Device)
			})
		}()
		cfg := gpu.LaunchConfig{Name: "second", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Executor: ex, Observer: w}
		require.NoError(t, d.Launch(ctx, cfg, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) }))
		require.NoError(t, <-first)
		require.Equal(t, []int32{64*32 + 1}, x.Host())
	})
}

// doneStart is a recorder whose LaunchStart waits until its launch's
// context ends, then panics.
type doneStart struct{ recorder }

func (w *doneStart) LaunchStart(g *gpu.Grid) {
	<-g.Done
	panic("gave up waiting")
}

// TestLaunchStartWaitEndsWithContext: a LaunchStart that waits can end
// its wait when the launch's context ends (Grid.Done), by cancellation,
// deadline or LaunchConfig.Timeout; the launch then fails with the
// Observer's panic and the context's error, runs no thread and gets no
// LaunchEnd.
func TestLaunchStartWaitEndsWithContext(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		k := func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) }
		w := &doneStart{}
		cfg := gpu.LaunchConfig{Name: "waiting", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: w}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		err := d.Launch(ctx, cfg, k)
		require.ErrorIs(t, err, context.Canceled)
		var pe *gpu.PanicError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "gave up waiting", pe.Value)
		require.Contains(t, err.Error(), "gpu: waiting: not started: context canceled")
		cfg.Timeout = 20 * time.Millisecond
		err = d.Launch(context.Background(), cfg, k)
		require.ErrorIs(t, err, gpu.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, []int32{0}, x.Host(), "no thread ran")
		require.Empty(t, w.events, "no event, LaunchEnd included")
	})
}

// startPanicky is a recorder whose LaunchStart panics.
type startPanicky struct{ recorder }

func (p *startPanicky) LaunchStart(g *gpu.Grid) { panic("observer bug in LaunchStart") }

// TestLaunchStartPanicSkipsLaunchEnd: a launch whose LaunchStart panics
// fails with the panic, runs no thread, and gets no LaunchEnd.
func TestLaunchStartPanicSkipsLaunchEnd(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 1)
		p := &startPanicky{}
		cfg := gpu.LaunchConfig{Name: "refused", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: p}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Device) })
		var pe *gpu.PanicError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, []int32{0}, x.Host(), "no thread ran")
		require.Empty(t, p.events, "no event, LaunchEnd included")
	})
}
