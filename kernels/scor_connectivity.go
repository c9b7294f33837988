package kernels

import (
	"context"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections, after the phase they apply
// to: the table and the kernel body name them by constant.
const (
	injNoWorkSync = "-no-work-sync"
	injBlockSteal = "-block-steal"
)

// ScorGraphConnectivity is ScoR's graph connectivity: union-find over the edges with
// compare-and-swap hooking, then pointer jumping, so that every vertex ends
// labelled with the smallest vertex id of its component.
//
// Three launches (init: comp[v] = v; link over the edges; compress over
// the vertices) each distribute their items with the work-stealing loop of
// [stealQueues]. Link hooks the larger of two roots under the smaller with
// a device-scope CAS, which fails if the root was hooked meanwhile, and
// retries; parent pointers only ever decrease, so the roots are the
// components' smallest ids. Every access to comp in link and compress is a
// device-scope atomic.
func ScorGraphConnectivity() *Entry {
	k := &Entry{
		Name:  "scor/graph-connectivity",
		Doc:   "CAS union-find with pointer jumping over work-stealing queues",
		Setup: setupConnectivity,
	}
	for _, phase := range []string{"init", "link", "compress"} {
		k.Injections = append(k.Injections, Injection{
			Name:     phase + injNoWorkSync,
			Doc:      "in " + phase + ", no __syncthreads between the work and thread 0's next claim, which overwrites the chunk start others may still read",
			Expect:   []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp},
			Where:    where(stealQueues.claim),
			Corrupts: true,
		})
	}
	for _, phase := range []string{"link", "compress"} {
		k.Injections = append(k.Injections, Injection{
			Name:   phase + injBlockSteal,
			Doc:    "in " + phase + ", a thief claims from another block's queue with a block-scope atomic add",
			Expect: []kind.Kind{kind.ScopedAtomic},
			Where:  where(stealQueues.steal),
		})
	}
	return k
}

type connectivity struct {
	g      graph
	q      stealQueues
	blocks int
	u, v   gpu.Buffer[int32]
	comp   gpu.Buffer[int32]
	inject string
}

func setupConnectivity(d *gpu.Device, p Params) (*Run, error) {
	c := &connectivity{blocks: 4, inject: p.Inject}
	threads, nv, ne := 80, 2000, 1500 // 2.5 warps per block, as ScoR's 400 threads end in a partial warp
	if p.Size == Paper {
		c.blocks, threads, nv, ne = 15, 400, 100_000, 150_000
	}
	c.g = randomGraph(newRand(p.Seed), nv, ne)
	c.u, c.v = gpu.FromHost(d, "edgeU", c.g.eu), gpu.FromHost(d, "edgeV", c.g.ev)
	c.comp = gpu.Alloc[int32](d, "comp", nv)
	c.q = newStealQueues(d, c.blocks, threads)
	return &Run{Launch: c.launch, Check: c.check}, nil
}

// queues returns the work-stealing loop for phase, with the injection if
// it is meant for that phase.
func (c *connectivity) queues(phase string) stealQueues {
	q := c.q
	switch c.inject {
	case phase + injNoWorkSync:
		q.noWorkSync = true
	case phase + injBlockSteal:
		q.stealScope = scope.Block
	}
	return q
}

func (c *connectivity) launch(ctx context.Context, launch LaunchFunc) error {
	phases := []struct {
		name  string
		items int
		work  func(*gpu.Thread, int)
	}{
		{"init", c.g.v, func(t *gpu.Thread, v int) { c.comp.Store(t, v, int32(v)) }},
		{"link", len(c.g.eu), c.link},
		{"compress", c.g.v, func(t *gpu.Thread, v int) { c.comp.AtomicExch(t, v, c.find(t, int32(v)), scope.Device) }},
	}
	for _, ph := range phases {
		q := c.queues(ph.name)
		q.divide(ph.items)
		cfg := launchCfg("connectivity-"+ph.name, c.blocks, q.threads)
		if err := launch(ctx, cfg, func(t *gpu.Thread) { q.run(t, ph.work) }); err != nil {
			return err
		}
	}
	return nil
}

// link joins the components of edge e's endpoints.
func (c *connectivity) link(t *gpu.Thread, e int) {
	a, b := c.u.Load(t, e), c.v.Load(t, e)
	for {
		ra, rb := c.find(t, a), c.find(t, b)
		if ra == rb {
			return
		}
		hi, lo := max(ra, rb), min(ra, rb)
		if c.comp.AtomicCAS(t, int(hi), hi, lo, scope.Device) == hi {
			return
		}
	}
}

// find returns the root of x's tree.
func (c *connectivity) find(t *gpu.Thread, x int32) int32 {
	for {
		p := c.comp.AtomicAdd(t, int(x), 0, scope.Device)
		if p == x {
			return x
		}
		x = p
	}
}

func (c *connectivity) check() error {
	return sameAll("component labels", c.comp.Host(), c.g.components())
}
