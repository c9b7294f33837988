package gpu_test

import (
	"context"
	"errors"
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

// refusing is an Observer whose LaunchStart panics with err.
type refusing struct {
	recorder
	err error
}

func (p *refusing) LaunchStart(g *gpu.Grid) { panic(p.err) }

// TestObserverRefusalIsItsError: an Observer that panics with an error
// value refuses the launch: Launch's error wraps that error as it is,
// with no PanicError or stack; a fault of the Go runtime in the observer
// (here a nil map write, a runtime.Error) is still a PanicError with the
// observer's stack.
func TestObserverRefusalIsItsError(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}
	refusal := errors.New("too many threads for this observer")
	cfg.Observer = &refusing{err: refusal}
	err := d.Launch(context.Background(), cfg, func(*gpu.Thread) {})
	require.ErrorIs(t, err, refusal)
	require.EqualError(t, err, "gpu: k: gpu: Observer.LaunchStart: too many threads for this observer")
	var pe *gpu.PanicError
	require.False(t, errors.As(err, &pe), "no stack for a refusal: %v", err)

	var m map[string]int
	cfg.Observer = &refusing{err: func() (err error) {
		defer func() { err = recover().(error) }()
		m["x"] = 1
		return nil
	}()}
	err = d.Launch(context.Background(), cfg, func(*gpu.Thread) {})
	require.ErrorAs(t, err, &pe, "a runtime fault keeps its stack")
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
