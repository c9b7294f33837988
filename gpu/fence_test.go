package gpu_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// fenceWatch is a Sequencer that counts, per scope instance (the device,
// each block, each warp), the fence.sc reports in flight, and records a
// report that found another one in flight in an instance of its own.
// Reports of scope meet (when set) wait, up to a deadline, for a second
// report of that scope to be in flight beside them.
type fenceWatch struct {
	memoryOrder
	mu       sync.Mutex
	inFlight map[[2]int]int // by {scope, instance number}
	overlaps atomic.Int64   // reports that overlapped one sharing an instance
	reports  atomic.Int64
	meet     scope.Scope
	waiting  atomic.Int64 // reports of scope meet in flight
	met      atomic.Int64 // reports of scope meet that saw another in flight
}

// instances returns t's instances of scopes warp to s.
func instances(t *gpu.Thread, s scope.Scope) [][2]int {
	var in [][2]int
	for l := scope.Warp; l <= min(s, scope.Device); l++ { // a system fence takes the device's order
		n := 0
		switch l {
		case scope.Warp:
			n = t.GlobalWarp()
		case scope.Block:
			n = t.BlockRank()
		}
		in = append(in, [2]int{int(l), n})
	}
	return in
}

func (o *fenceWatch) Fence(t *gpu.Thread, s scope.Scope, ord gpu.Order) {
	if ord != gpu.SeqCst {
		return
	}
	o.reports.Add(1)
	in := instances(t, s)
	o.enter(in, +1)
	if o.meet != scope.Thread && s == o.meet {
		o.waiting.Add(1)
		for end := time.Now().Add(5 * time.Second); o.waiting.Load() < 2 && time.Now().Before(end); {
			runtime.Gosched()
		}
		if o.waiting.Load() >= 2 {
			o.met.Add(1)
		}
	} else {
		runtime.Gosched() // widen the window in which an overlap would show
	}
	o.enter(in, -1)
}

// enter adds d to the in-flight count of each instance of in, counting
// an overlap where a count goes past one.
func (o *fenceWatch) enter(in [][2]int, d int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, k := range in {
		if o.inFlight[k] += d; o.inFlight[k] > 1 {
			o.overlaps.Add(1)
		}
	}
}

// fenceLaunch launches kernel on a fresh device in a grid of blocks of
// 64 threads under executor ex, watched by w: as the device's observer,
// beside a second Sequencer as the launch's when pair is set, else alone.
func fenceLaunch(t *testing.T, ex gpu.Executor, w *fenceWatch, pair bool, blocks int, kernel gpu.Kernel) {
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 64}, Executor: ex}
	if pair {
		cfg.Observer = newMemoryOrder()
	}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: w})
	require.NoError(t, err)
	closeAtEnd(t, d)
	require.NoError(t, d.Launch(context.Background(), cfg, kernel))
}

func newFenceWatch(meet scope.Scope) *fenceWatch {
	return &fenceWatch{memoryOrder: *newMemoryOrder(), inFlight: map[[2]int]int{}, meet: meet}
}

// TestFenceSCReportsShareInstanceOrder: beside a second sequencing
// observer, fence.sc reports whose scopes share an instance (a device
// fence and a block fence of one block, two warp fences of one warp, any
// two device fences) are never reported at once, so both observers see
// them in one order; under both executors, with warp, block, device and
// system fences mixed.
func TestFenceSCReportsShareInstanceOrder(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			w := newFenceWatch(scope.Thread)
			fenceLaunch(t, ex, w, true, 4, func(th *gpu.Thread) {
				for k := range 8 {
					th.Fence(scope.Warp + scope.Scope((th.ThreadRank()+k)%4))
				}
			})
			require.Equal(t, int64(4*64*8), w.reports.Load())
			require.Zero(t, w.overlaps.Load(), "fence.sc reports of one instance overlapped")
		})
	}
}

// TestBlockFencesOfTwoBlocksRunSideBySide: block-scope fence.sc reports
// of two blocks share no instance, so even beside a second sequencing
// observer the runtime does not order them: each of the two waits in its
// report until the other's is in flight, which a device-wide order would
// never let happen.
func TestBlockFencesOfTwoBlocksRunSideBySide(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			w := newFenceWatch(scope.Block)
			fenceLaunch(t, ex, w, true, 2, func(th *gpu.Thread) {
				if th.ThreadRank() == 0 {
					th.ThreadFenceBlock()
				}
			})
			require.Equal(t, int64(2), w.met.Load(), "the two blocks' fences were not in flight together")
			require.Zero(t, w.overlaps.Load())
		})
	}
}

// TestLoneSequencerOrdersItsFences: a single sequencing observer orders
// fence.sc reports itself, so the runtime reports even two device fences
// of two blocks at once.
func TestLoneSequencerOrdersItsFences(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			w := newFenceWatch(scope.Device)
			fenceLaunch(t, ex, w, false, 2, func(th *gpu.Thread) {
				if th.ThreadRank() == 0 {
					th.ThreadFence()
				}
			})
			require.Equal(t, int64(2), w.met.Load(), "the two device fences were not in flight together")
		})
	}
}
