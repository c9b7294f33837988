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
	injAllBlockAtomics = "all-block-atomics"
)

// Scor1DConv is ScoR's 1-D convolution: out[o] = Σ_f in[o-f+fs/2]·filter[f]
// over float32, one work item per (output, tap) pair, grid-strided.
//
// Each item adds its product into out[o] with a float atomic add. When all
// fs taps of o fall in the thread's own block the add uses block scope,
// otherwise device scope: a tap group straddling a block boundary is
// updated by two blocks. A first launch zeroes the output.
//
// Inputs are multiples of 1/4 small enough that every sum is exact in
// float32 whatever the order of the atomic adds, so the output is checked
// exactly.
func Scor1DConv() *Entry {
	return &Entry{
		Name: "scor/1dconv",
		Doc:  "1-D convolution by float atomic adds, block scope when an output's taps stay in one block",
		Injections: []Injection{
			{Name: injAllBlockAtomics, Doc: "every contribution uses a block-scope atomic add, also for outputs whose taps straddle two blocks",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*conv1D).contribute)},
		},
		Setup: setupConv1D,
	}
}

type conv1D struct {
	n, fs, blocks, threads int
	in, filter, out        gpu.Buffer[float32]
	hostIn, hostFilter     []float32
	inject                 string
}

func setupConv1D(d *gpu.Device, p Params) (*Run, error) {
	c := &conv1D{n: 4096, fs: 9, blocks: 4, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		c.n, c.blocks, c.threads = 100_000, 15, 1024
	}
	r := newRand(p.Seed)
	c.hostIn, c.hostFilter = make([]float32, c.n), make([]float32, c.fs)
	for i := range c.hostIn {
		c.hostIn[i] = float32(r.IntN(64)) / 4
	}
	for i := range c.hostFilter {
		c.hostFilter[i] = float32(r.IntN(16)) / 4
	}
	c.in, c.filter = gpu.FromHost(d, "array", c.hostIn), gpu.FromHost(d, "filter", c.hostFilter)
	c.out = gpu.Alloc[float32](d, "output", c.n)
	return &Run{Launch: c.launch, Check: c.check}, nil
}

func (c *conv1D) launch(ctx context.Context, launch LaunchFunc) error {
	total := c.blocks * c.threads
	zero := func(t *gpu.Thread) {
		for i := t.GlobalID(); i < c.n; i += total {
			c.out.Store(t, i, 0)
		}
	}
	if err := launch(ctx, launchCfg("conv1d-init", c.blocks, c.threads), zero); err != nil {
		return err
	}
	return launch(ctx, launchCfg("conv1d", c.blocks, c.threads), c.convolve)
}

func (c *conv1D) convolve(t *gpu.Thread) {
	total := c.blocks * c.threads
	for w := t.GlobalID(); w < c.n*c.fs; w += total {
		o, f := w/c.fs, w%c.fs
		if in := o - f + c.fs/2; in >= 0 && in < c.n {
			c.contribute(t, o, f, c.in.Load(t, in)*c.filter.Load(t, f))
		}
	}
}

// contribute adds one tap's product into out[o]. The item for tap f of o
// runs on rank-f+f' for tap f', so the group stays in this block exactly
// when rank-f >= 0 and rank-f+fs <= blockDim.
func (c *conv1D) contribute(t *gpu.Thread, o, f int, v float32) {
	s := scope.Device
	if start := t.ThreadRank() - f; start >= 0 && start+c.fs <= c.threads || c.inject == injAllBlockAtomics {
		s = scope.Block
	}
	c.out.AtomicAdd(t, o, v, s)
}

func (c *conv1D) check() error {
	want := make([]float32, c.n)
	for o := range want {
		for f := range c.fs {
			if in := o - f + c.fs/2; in >= 0 && in < c.n {
				want[o] += c.hostIn[in] * c.hostFilter[f]
			}
		}
	}
	return sameAll(fmt.Sprintf("output of %d-tap filter", c.fs), c.out.Host(), want)
}
