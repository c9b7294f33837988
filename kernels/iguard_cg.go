package kernels

import (
	"fmt"
	"math"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockSyncBeforeSpmv = "block-sync-before-spmv"
)

// IguardConjugateGradient solves A·x = b by the conjugate gradient method in one
// cooperative launch, like the CUDA samples' conjugateGradientMultiBlockCG
// (iGUARD's conjugGMB). A is the tridiagonal matrix with 4 on the diagonal
// and -1 beside it, symmetric positive definite.
//
// Each thread owns a grid-strided set of rows. A dot product is summed per
// warp with shuffles and added by lane 0 into its own word for this
// iteration with a device-scope float atomic; grid.sync() separates the
// matrix-vector product, the dot products and the vector updates, so
// every thread reads the neighbours' entries of p and the finished sums
// only after the whole grid wrote them.
//
// Float sums come out in a different order than the sequential
// reference's, so x is checked against it within a relative 1e-9.
func IguardConjugateGradient() *Entry {
	return &Entry{
		Name:        "iguard/conjugate-gradient",
		Doc:         "multi-block conjugate gradient with grid.sync() between SpMV, dot products and updates",
		Cooperative: true,
		Injections: []Injection{
			{Name: injBlockSyncBeforeSpmv, Doc: "only the block syncs between updating p and the matrix-vector product that reads neighbouring blocks' p",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*cgSolver).spmv), Corrupts: true},
		},
		Setup: setupCG,
	}
}

type cgSolver struct {
	n, blocks, threads, iters int
	b, x, r, p, ap            gpu.Buffer[float64]
	dots                      gpu.Buffer[float64] // rr[k] at 2k, pAp[k] at 2k+1
	inject                    string
	host                      []float64
}

func setupCG(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "iguard/conjugate-gradient"); err != nil {
		return nil, err
	}
	c := &cgSolver{n: 2048, blocks: 4, threads: 128, iters: 20, inject: p.Inject}
	if p.Size == Paper {
		c.n, c.blocks, c.threads = 1<<20, 16, 1024
	}
	r := newRand(p.Seed)
	c.host = make([]float64, c.n)
	for i := range c.host {
		c.host[i] = float64(r.IntN(10))
	}
	c.b, c.x = gpu.FromHost(d, "b", c.host), gpu.Alloc[float64](d, "x", c.n)
	c.r, c.p = gpu.FromHost(d, "r", c.host), gpu.FromHost(d, "p", c.host)
	c.ap, c.dots = gpu.Alloc[float64](d, "Ap", c.n), gpu.Alloc[float64](d, "dots", 2*c.iters+2)
	return &Run{Launch: single(coopCfg("conjugate-gradient", c.blocks, c.threads), c.kernel), Check: c.check}, nil
}

func (c *cgSolver) kernel(t *gpu.Thread) {
	grid := gpu.ThisGrid(t)
	c.dot(t, 0, c.r, c.r)
	grid.Sync()
	for k := range c.iters {
		c.spmv(t)
		c.dot(t, 2*k+1, c.p, c.ap)
		grid.Sync()
		alpha := c.dots.Load(t, 2*k) / c.dots.Load(t, 2*k+1)
		for i := t.GlobalID(); i < c.n; i += c.blocks * c.threads {
			c.x.Store(t, i, c.x.Load(t, i)+alpha*c.p.Load(t, i))
			c.r.Store(t, i, c.r.Load(t, i)-alpha*c.ap.Load(t, i))
		}
		c.dot(t, 2*k+2, c.r, c.r)
		grid.Sync()
		beta := c.dots.Load(t, 2*k+2) / c.dots.Load(t, 2*k)
		for i := t.GlobalID(); i < c.n; i += c.blocks * c.threads {
			c.p.Store(t, i, c.r.Load(t, i)+beta*c.p.Load(t, i))
		}
		if c.inject == injBlockSyncBeforeSpmv {
			gpu.ThisBlock(t).Sync()
		} else {
			grid.Sync()
		}
	}
}

// spmv sets Ap = A·p for the thread's rows, reading p of the rows beside
// them, which other blocks own at the edges.
func (c *cgSolver) spmv(t *gpu.Thread) {
	for i := t.GlobalID(); i < c.n; i += c.blocks * c.threads {
		v := 4 * c.p.Load(t, i)
		if i > 0 {
			v -= c.p.Load(t, i-1)
		}
		if i+1 < c.n {
			v -= c.p.Load(t, i+1)
		}
		c.ap.Store(t, i, v)
	}
}

// dot adds u·v over the thread's rows into dots[at]: one shuffle reduction
// per warp, one device-scope atomic per warp.
func (c *cgSolver) dot(t *gpu.Thread, at int, u, v gpu.Buffer[float64]) {
	var s float64
	for i := t.GlobalID(); i < c.n; i += c.blocks * c.threads {
		s += u.Load(t, i) * v.Load(t, i)
	}
	if s = gpu.ReduceAddSync(t, gpu.FullMask, s); t.Lane() == 0 {
		c.dots.AtomicAdd(t, at, s, scope.Device)
	}
}

// solve runs the same iterations sequentially.
func (c *cgSolver) solve() []float64 {
	n := c.n
	x, r, p, ap := make([]float64, n), append([]float64(nil), c.host...), append([]float64(nil), c.host...), make([]float64, n)
	dot := func(u, v []float64) (s float64) {
		for i := range u {
			s += u[i] * v[i]
		}
		return s
	}
	rr := dot(r, r)
	for range c.iters {
		for i := range n {
			ap[i] = 4 * p[i]
			if i > 0 {
				ap[i] -= p[i-1]
			}
			if i+1 < n {
				ap[i] -= p[i+1]
			}
		}
		alpha := rr / dot(p, ap)
		for i := range n {
			x[i] += alpha * p[i]
			r[i] -= alpha * ap[i]
		}
		rr2 := dot(r, r)
		for i := range n {
			p[i] = r[i] + rr2/rr*p[i]
		}
		rr = rr2
	}
	return x
}

func (c *cgSolver) check() error {
	want, got := c.solve(), c.x.Host()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
			return fmt.Errorf("x[%d] = %v, want %v (within a relative 1e-9)", i, got[i], want[i])
		}
	}
	return nil
}
