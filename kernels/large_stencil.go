package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// injInPlace is the switch name of large/stencil's injection.
const injInPlace = "in-place"

// largeStencil is one Jacobi step of a 2D 5-point stencil over a grid of
// 2^log2 float32s, one point per thread in 16×16 blocks: each point
// becomes the mean of itself and its four neighbors (zero beyond the
// edges), read from one buffer through a read-only view and written to
// another, so that no thread writes what another reads.
func largeStencil(log2 int) *Entry {
	w, h := side2D(log2)
	return &Entry{
		Name: "large/stencil",
		Doc:  fmt.Sprintf("one Jacobi step of a 5-point stencil over %dx%d float32s, one point per thread, 16x16 blocks", w, h),
		Injections: []Injection{
			{Name: injInPlace, Doc: "the step writes its result over its input, which neighboring threads, warps and blocks still read",
				Expect: []kind.Kind{kind.MissingSyncwarp, kind.MissingBlockFence, kind.MissingDeviceFence},
				Where:  where((*stencil2D).kernel), Corrupts: true,
				Precise: &Verdict{Expect: []kind.Kind{kind.ReadOnlyWritten}, Why: whyReadOnly}},
		},
		Setup: func(d *gpu.Device, p Params) (*Run, error) { return setupStencil2D(d, p, w, h) },
	}
}

type stencil2D struct {
	w, h    int
	in, out gpu.Buffer[float32]
	host    []float32
}

func setupStencil2D(d *gpu.Device, p Params, w, h int) (*Run, error) {
	s := &stencil2D{w: w, h: h}
	r := newRand(p.Seed)
	s.host = make([]float32, w*h)
	for i := range s.host {
		s.host[i] = r.Float32()
	}
	s.in = gpu.FromHost(d, "in", s.host)
	s.out = gpu.Alloc[float32](d, "out", w*h)
	if p.Inject == injInPlace {
		s.out = s.in
	}
	return &Run{Launch: single(tileCfg("stencil", w, h), s.kernel), Check: s.check}, nil
}

func (s *stencil2D) kernel(t *gpu.Thread) {
	b, th := t.BlockIdx(), t.ThreadIdx()
	x, y := b.X*largeTile+th.X, b.Y*largeTile+th.Y
	in := s.in.ReadOnly() // const float* __restrict__ in
	at := func(x, y int) float32 {
		if !s.inside(x, y) {
			return 0
		}
		return in.Load(t, y*s.w+x)
	}
	s.out.Store(t, y*s.w+x, mean5(at(x, y), at(x-1, y), at(x+1, y), at(x, y-1), at(x, y+1)))
}

// inside reports whether (x, y) is a point of the grid; the points beyond
// its edges count as zero.
func (s *stencil2D) inside(x, y int) bool { return x >= 0 && x < s.w && y >= 0 && y < s.h }

// mean5 is the stencil's weight: the mean of a point and its neighbors,
// summed in one fixed order so that the reference matches bit for bit.
func mean5(c, w, e, n, s float32) float32 { return (c + w + e + n + s) / 5 }

func (s *stencil2D) check() error {
	at := func(x, y int) float32 {
		if !s.inside(x, y) {
			return 0
		}
		return s.host[y*s.w+x]
	}
	want := make([]float32, len(s.host))
	for y := range s.h {
		for x := range s.w {
			want[y*s.w+x] = mean5(at(x, y), at(x-1, y), at(x+1, y), at(x, y-1), at(x, y+1))
		}
	}
	return sameAll("out", s.out.Host(), want)
}
