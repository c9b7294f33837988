package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// injShortStride is the switch name of large/saxpy's injection.
const injShortStride = "short-stride"

// saxpyA is the scalar a of y = a·x + y.
const saxpyA = 2.5

// largeSAXPY is y = a·x + y over 2^log2 float32s, one element per thread
// in CUDA's grid-stride loop: two loads and a store per thread, and no
// synchronization, since no two threads touch one element.
func largeSAXPY(log2 int) *Entry {
	n := 1 << log2
	return &Entry{
		Name: "large/saxpy",
		Doc:  fmt.Sprintf("y = a*x + y over %d float32s, one per thread, grid-stride loop", n),
		Injections: []Injection{
			{Name: injShortStride, Doc: "the grid-stride loop steps one element short of the grid: thread 0 also updates the last thread's element",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*saxpy).kernel), Corrupts: true},
		},
		Setup: func(d *gpu.Device, p Params) (*Run, error) { return setupSAXPY(d, p, n) },
	}
}

type saxpy struct {
	n    int
	x, y gpu.Buffer[float32]
	hx   []float32 // the input, kept for the reference
	hy   []float32
	// stride is the grid-stride loop's step: the grid, or one less.
	stride int
}

func setupSAXPY(d *gpu.Device, p Params, n int) (*Run, error) {
	s := &saxpy{n: n, stride: n}
	if p.Inject == injShortStride {
		s.stride = n - 1
	}
	r := newRand(p.Seed)
	s.hx, s.hy = make([]float32, n), make([]float32, n)
	for i := range n {
		s.hx[i], s.hy[i] = r.Float32(), r.Float32()
	}
	s.x, s.y = gpu.FromHost(d, "x", s.hx), gpu.FromHost(d, "y", s.hy)
	return &Run{Launch: single(launchCfg("saxpy", n/largeBlock, largeBlock), s.kernel), Check: s.check}, nil
}

func (s *saxpy) kernel(t *gpu.Thread) {
	x := s.x.ReadOnly() // const float* __restrict__ x
	for i := t.GlobalID(); i < s.n; i += s.stride {
		s.y.Store(t, i, axpy(x.Load(t, i), s.y.Load(t, i)))
	}
}

// axpy returns a·x + y; the conversion rounds the product, so that no
// platform fuses it into a multiply-add and the reference matches bit for
// bit.
func axpy(x, y float32) float32 { return float32(saxpyA*x) + y }

func (s *saxpy) check() error {
	want := make([]float32, s.n)
	for i := range want {
		want[i] = axpy(s.hx[i], s.hy[i])
	}
	return sameAll("y", s.y.Host(), want)
}
