package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// panicky is an Observer that panics in one method.
type panicky struct {
	recorder
	in string
}

func (p *panicky) boom(method string) {
	if p.in == method {
		panic("observer bug in " + method)
	}
}

func (p *panicky) LaunchStart(g *gpu.Grid)                         { p.boom("LaunchStart") }
func (p *panicky) LaunchEnd(g *gpu.Grid, err error)                { p.boom("LaunchEnd") }
func (p *panicky) BlockStart(g *gpu.Grid, b int)                   { p.boom("BlockStart") }
func (p *panicky) BlockEnd(g *gpu.Grid, b int)                     { p.boom("BlockEnd") }
func (p *panicky) Access(t *gpu.Thread, a *gpu.Access)             { p.boom("Access") }
func (p *panicky) Fence(t *gpu.Thread, s scope.Scope, _ gpu.Order) { p.boom("Fence") }
func (p *panicky) Sync(t *gpu.Thread, s gpu.Sync)                  { p.boom("Sync") }

// TestObserverPanics: an Observer that panics in any method ends the
// launch with an error naming the method, on every executor, never a hang
// or a crashed test binary.
func TestObserverPanics(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 64)
		for _, method := range []string{"LaunchStart", "LaunchEnd", "BlockStart", "BlockEnd", "Access", "Fence", "Sync"} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: &panicky{in: method}}
			err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
				x.Store(t, t.ThreadRank(), 1)
				t.ThreadFence()
				t.SyncThreads()
				t.SyncWarp(gpu.FullMask)
				t.SyncThreads()
			})
			cancel()
			var pe *gpu.PanicError
			require.ErrorAs(t, err, &pe, method)
			require.Equal(t, "observer bug in "+method, pe.Value, method)
			require.NotErrorIs(t, err, context.DeadlineExceeded, "%s: the launch must end by itself", method)
		}
	})
}

// blockPanicky is an Observer whose BlockStart or BlockEnd panics for one
// block.
type blockPanicky struct {
	recorder
	end   bool
	block int
}

func (p *blockPanicky) BlockStart(g *gpu.Grid, b int) { p.boom(false, b) }
func (p *blockPanicky) BlockEnd(g *gpu.Grid, b int)   { p.boom(true, b) }

func (p *blockPanicky) boom(end bool, b int) {
	if end == p.end && b == p.block {
		panic("observer bug")
	}
}

// TestObserverBlockPanicNamesBlock: an Observer's panic in BlockStart or
// BlockEnd names the launch and the block's coordinates, as a thread's
// error does, not only the block's linear id.
func TestObserverBlockPanicNamesBlock(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		for _, end := range []bool{false, true} {
			cfg := gpu.LaunchConfig{Name: "tiles", Grid: gpu.Dim3{X: 2, Y: 2}, Block: gpu.Dim3{X: 8}, Executor: ex,
				Observer: &blockPanicky{end: end, block: 3}}
			err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {})
			require.ErrorContains(t, err, "gpu: tiles: block (1,1,0) (block id 3): gpu: Observer.Block", "end %v", end)
		}
	})
}

// TestObservedErrorsStayFlat: with an observer, Launch returns the same
// flat list of thread errors as without one.
func TestObservedErrorsStayFlat(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	x := gpu.Alloc[int32](d, "x", 1)
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 3}, Observer: &recorder{}}
	err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, t.ThreadRank(), 1) })
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	require.Len(t, errs, 2)
	var te *gpu.ThreadError
	require.ErrorAs(t, errs[0], &te)
}
