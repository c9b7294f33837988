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
// Block-scope reports may also wait, up to a deadline, for a block fence
// of another block to be in flight beside them (meet).
type fenceWatch struct {
	memoryOrder
	mu       sync.Mutex
	inFlight map[[2]int]int // by {scope, instance number}
	overlaps atomic.Int64   // reports that overlapped one sharing an instance
	reports  atomic.Int64
	meet     bool
	blocks   atomic.Int64 // block fences in flight
	met      atomic.Int64 // block fences that saw another block's in flight
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
	if o.meet && s == scope.Block {
		o.blocks.Add(1)
		for end := time.Now().Add(5 * time.Second); o.blocks.Load() < 2 && time.Now().Before(end); {
			runtime.Gosched()
		}
		if o.blocks.Load() >= 2 {
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

// TestFenceSCReportsShareInstanceOrder: fence.sc reports whose scopes
// share an instance (a device fence and a block fence of one block, two
// warp fences of one warp, any two device fences) are never reported at
// once, so every sequencing observer sees them in one order; under both
// executors, with warp, block, device and system fences mixed.
func TestFenceSCReportsShareInstanceOrder(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			d := newDevice(t)
			o := &fenceWatch{memoryOrder: *newMemoryOrder(), inFlight: map[[2]int]int{}}
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 64}, Executor: ex, Observer: o}
			require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
				for k := range 8 {
					th.Fence(scope.Warp + scope.Scope((th.ThreadRank()+k)%4))
				}
			}))
			require.Equal(t, int64(4*64*8), o.reports.Load())
			require.Zero(t, o.overlaps.Load(), "fence.sc reports of one instance overlapped")
		})
	}
}

// TestBlockFencesOfTwoBlocksRunSideBySide: block-scope fence.sc reports
// of two blocks share no instance, so the runtime does not order them:
// each of the two waits in its report until the other's is in flight,
// which a device-wide order would never let happen.
func TestBlockFencesOfTwoBlocksRunSideBySide(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			d := newDevice(t)
			o := &fenceWatch{memoryOrder: *newMemoryOrder(), inFlight: map[[2]int]int{}, meet: true}
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: o}
			require.NoError(t, d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
				if th.ThreadRank() == 0 {
					th.ThreadFenceBlock()
				}
			}))
			require.Equal(t, int64(2), o.met.Load(), "the two blocks' fences were not in flight together")
			require.Zero(t, o.overlaps.Load())
		})
	}
}
