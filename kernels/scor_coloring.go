package kernels

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections, after the phase they apply
// to: the table and the kernel body name them by constant.
const (
	injBlockClaim  = "-block-claim"
	injNoClaimSync = "-no-claim-sync"
)

// ScorGraphColoring is ScoR's graph coloring: speculative coloring with forbidden-
// color bitmaps, rounds of three launches until no conflict is left.
//
// A vertex's color is palette·32 + c with c in 1..32. Assign gives every
// uncolored vertex the lowest color its bitmap does not forbid (moving to
// the next palette when all 32 are forbidden). Detect uncolors the lower
// endpoint of every edge whose endpoints got the same color, and clears
// the done flag while any vertex is uncolored. Forbid sets, in each
// uncolored vertex's bitmap, the colors of its colored neighbours. Each
// launch distributes its items with the work-stealing loop of
// [stealQueues]; colors written by one edge's thread and read by another's
// use device-scope atomics.
func ScorGraphColoring() *Entry {
	k := &Entry{
		Name:  "scor/graph-coloring",
		Doc:   "speculative graph coloring with forbidden-color bitmaps over work-stealing queues",
		Setup: setupColoring,
	}
	for _, phase := range []string{"assign", "detect", "forbid"} {
		k.Injections = append(k.Injections,
			Injection{Name: phase + injBlockClaim, Doc: "in " + phase + ", thread 0 claims chunks with a block-scope atomic add on a head thieves update too",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where(stealQueues.claim)},
			Injection{Name: phase + injNoClaimSync, Doc: "in " + phase + ", no __syncthreads between thread 0's claim and the block's read of the chunk start",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where(stealQueues.claim)})
	}
	return k
}

type coloring struct {
	g                     graph
	q                     stealQueues
	blocks                int
	u, v                  gpu.Buffer[int32]
	color, palette, forbd gpu.Buffer[int32]
	done                  gpu.Buffer[int32]
	inject                string
}

// maxRounds bounds the rounds; speculative coloring converges in a few.
const maxRounds = 200

func setupColoring(d *gpu.Device, p Params) (*Run, error) {
	c := &coloring{blocks: 4, inject: p.Inject}
	threads, nv, ne := 64, 1000, 3000
	if p.Size == Paper {
		c.blocks, threads, nv, ne = 15, 256, 100_000, 150_000
	}
	c.g = randomGraph(newRand(p.Seed), nv, ne)
	c.u, c.v = gpu.FromHost(d, "edgeU", c.g.eu), gpu.FromHost(d, "edgeV", c.g.ev)
	c.color = gpu.Alloc[int32](d, "color", nv)
	c.palette = gpu.Alloc[int32](d, "palette", nv)
	c.forbd = gpu.Alloc[int32](d, "forbidden", nv)
	c.done = gpu.Alloc[int32](d, "done", 1)
	c.q = newStealQueues(d, c.blocks, threads)
	return &Run{Launch: c.launch, Check: c.check}, nil
}

func (c *coloring) queues(phase string) stealQueues {
	q := c.q
	switch c.inject {
	case phase + injBlockClaim:
		q.claimScope = scope.Block
	case phase + injNoClaimSync:
		q.noClaimSync = true
	}
	return q
}

func (c *coloring) phase(ctx context.Context, launch LaunchFunc, name string, items int, work func(*gpu.Thread, int)) error {
	q := c.queues(name)
	q.divide(items)
	return launch(ctx, launchCfg("coloring-"+name, c.blocks, q.threads), func(t *gpu.Thread) { q.run(t, work) })
}

func (c *coloring) launch(ctx context.Context, launch LaunchFunc) error {
	for range maxRounds {
		if err := c.phase(ctx, launch, "assign", c.g.v, c.assign); err != nil {
			return err
		}
		c.done.Fill(1)
		if err := c.phase(ctx, launch, "detect", len(c.g.eu), c.detect); err != nil {
			return err
		}
		if c.done.Host()[0] == 1 {
			return nil
		}
		if err := c.phase(ctx, launch, "forbid", len(c.g.eu), c.forbid); err != nil {
			return err
		}
	}
	return fmt.Errorf("coloring: not done after %d rounds", maxRounds)
}

// assign colors vertex v if it is uncolored.
func (c *coloring) assign(t *gpu.Thread, v int) {
	if c.color.Load(t, v) != 0 {
		return
	}
	f := c.forbd.Load(t, v)
	if f == -1 { // every color of this palette is forbidden: take the next
		c.palette.Store(t, v, c.palette.Load(t, v)+1)
		c.forbd.Store(t, v, 0)
		f = 0
	}
	c.color.Store(t, v, int32(bits.TrailingZeros32(^uint32(f))+1))
}

// detect uncolors the lower endpoint of edge e if both have one color.
func (c *coloring) detect(t *gpu.Thread, e int) {
	u, v := int(c.u.Load(t, e)), int(c.v.Load(t, e))
	cu, cv := c.color.AtomicAdd(t, u, 0, scope.Device), c.color.AtomicAdd(t, v, 0, scope.Device)
	if cu != 0 && cu == cv && c.palette.Load(t, u) == c.palette.Load(t, v) {
		c.color.AtomicExch(t, u, 0, scope.Device)
		cu = 0
	}
	if cu == 0 || cv == 0 {
		c.done.AtomicExch(t, 0, 0, scope.Device)
	}
}

// forbid marks the color of edge e's colored endpoint as forbidden for
// its uncolored one.
func (c *coloring) forbid(t *gpu.Thread, e int) {
	u, v := int(c.u.Load(t, e)), int(c.v.Load(t, e))
	if c.palette.Load(t, u) != c.palette.Load(t, v) {
		return
	}
	cu, cv := c.color.Load(t, u), c.color.Load(t, v)
	switch {
	case cu == 0 && cv != 0:
		c.forbd.AtomicOr(t, u, 1<<(cv-1), scope.Device)
	case cv == 0 && cu != 0:
		c.forbd.AtomicOr(t, v, 1<<(cu-1), scope.Device)
	}
}

func (c *coloring) check() error {
	color, palette := c.color.Host(), c.palette.Host()
	for i := range color {
		if color[i] > 0 {
			color[i] += 32 * palette[i]
		}
	}
	return c.g.checkColoring(color)
}
