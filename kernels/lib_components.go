package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeMin = "block-scope-min"
	injWeakLabelRead = "weak-label-read"
)

// LibComponents labels connected components by min-label propagation, one
// launch per round until no label changes (LonestarGPU's and Gunrock's
// simplest CC): a thread takes an edge and lowers each endpoint's label to
// the other's with a device-scope atomic min, raising a changed flag when
// it did. Labels are read with atomics too, since other threads lower them
// during the round.
func LibComponents() *Entry {
	return &Entry{
		Name: "lib/components",
		Doc:  "connected components by label propagation with device-scope atomicMin",
		Injections: []Injection{
			{Name: injWeakLabelRead, Doc: "endpoints' labels are read with weak loads while other threads lower them",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*components).relax)},
			{Name: injBlockScopeMin, Doc: "labels are lowered with block-scope atomicMin",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*components).relax)},
		},
		Setup: setupComponents,
	}
}

type components struct {
	g                 graph
	blocks, threads   int
	u, v, label, flag gpu.Buffer[int32]
	inject            string
}

func setupComponents(d *gpu.Device, p Params) (*Run, error) {
	c := &components{blocks: 8, threads: 128, inject: p.Inject}
	nv, ne := 4000, 3000
	if p.Size == Paper {
		c.blocks, c.threads, nv, ne = 64, 256, 1_000_000, 1_000_000
	}
	c.g = randomGraph(newRand(p.Seed), nv, ne)
	c.u, c.v = gpu.FromHost(d, "edgeU", c.g.eu), gpu.FromHost(d, "edgeV", c.g.ev)
	labels := make([]int32, nv)
	for i := range labels {
		labels[i] = int32(i)
	}
	c.label, c.flag = gpu.FromHost(d, "label", labels), gpu.Alloc[int32](d, "changed", 1)
	return &Run{Launch: c.launch, Check: c.check}, nil
}

func (c *components) launch(ctx context.Context, launch LaunchFunc) error {
	for round := 0; ; round++ {
		c.flag.Fill(0)
		k := func(t *gpu.Thread) {
			u, v := c.u.ReadOnly(), c.v.ReadOnly() // const int* __restrict__
			for e := t.GlobalID(); e < len(c.g.eu); e += c.blocks * c.threads {
				c.relax(t, int(u.Load(t, e)), int(v.Load(t, e)))
			}
		}
		if err := launch(ctx, launchCfg(fmt.Sprintf("cc-round%d", round), c.blocks, c.threads), k); err != nil {
			return err
		}
		if c.flag.Host()[0] == 0 {
			return nil
		}
	}
}

// relax lowers the labels of edge (a, b)'s endpoints to their minimum.
func (c *components) relax(t *gpu.Thread, a, b int) {
	s := scope.Device
	if c.inject == injBlockScopeMin {
		s = scope.Block
	}
	var la, lb int32
	if c.inject == injWeakLabelRead {
		la, lb = c.label.Load(t, a), c.label.Load(t, b)
	} else {
		la, lb = c.label.AtomicAdd(t, a, 0, s), c.label.AtomicAdd(t, b, 0, s)
	}
	if la < lb && c.label.AtomicMin(t, b, la, s) > la || lb < la && c.label.AtomicMin(t, a, lb, s) > lb {
		c.flag.AtomicExch(t, 0, 1, scope.Device)
	}
}

func (c *components) check() error {
	return sameAll("component labels", c.label.Host(), c.g.components())
}
