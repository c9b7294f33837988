package gorace

import "fmt"

// stencil is one Jacobi step of a 5-point stencil over 2^20 float32s, in
// 16×16 blocks.
type stencil struct {
	w, h    int
	in, out []float32
}

func setupStencil(shift int) *Job {
	w, h := side2D(20 - shift)
	s := &stencil{w: w, h: h, in: make([]float32, w*h), out: make([]float32, w*h)}
	r := newRand()
	for i := range s.in {
		s.in[i] = r.Float32()
	}
	return &Job{Do: s.do, Check: s.check}
}

func (s *stencil) do() {
	bw := s.w / tile
	forBlocks(bw*(s.h/tile), func(b int) {
		x0, y0 := b%bw*tile, b/bw*tile
		for y := y0; y < y0+tile; y++ {
			for x := x0; x < x0+tile; x++ {
				s.out[y*s.w+x] = s.point(x, y)
			}
		}
	})
}

// point returns the new value at (x, y): the mean of the point and its
// neighbors, zero beyond the edges, summed in the kernel's order.
func (s *stencil) point(x, y int) float32 {
	return (s.at(x, y) + s.at(x-1, y) + s.at(x+1, y) + s.at(x, y-1) + s.at(x, y+1)) / 5
}

func (s *stencil) at(x, y int) float32 {
	if x < 0 || x >= s.w || y < 0 || y >= s.h {
		return 0
	}
	return s.in[y*s.w+x]
}

func (s *stencil) check() error {
	for y := range s.h {
		for x := range s.w {
			if got, want := s.out[y*s.w+x], s.point(x, y); got != want {
				return fmt.Errorf("out(%d, %d) = %v, want %v", x, y, got, want)
			}
		}
	}
	return nil
}
