package gorace

import "fmt"

// saxpyA is the scalar a of y = a·x + y.
const saxpyA = 2.5

// saxpy is y = a·x + y over 2^22 float32s.
type saxpy struct{ x, y, y0 []float32 }

func setupSAXPY(shift int) *Job {
	n := 1 << (22 - shift)
	s := &saxpy{x: make([]float32, n), y: make([]float32, n)}
	r := newRand()
	for i := range n {
		s.x[i], s.y[i] = r.Float32(), r.Float32()
	}
	s.y0 = append([]float32(nil), s.y...)
	return &Job{Do: s.do, Check: s.check}
}

func (s *saxpy) do() {
	forBlocks(len(s.x)/block, func(b int) {
		for i := b * block; i < (b+1)*block; i++ {
			s.y[i] = axpy(s.x[i], s.y[i])
		}
	})
}

// axpy returns a·x + y; the conversion rounds the product, so that no
// platform fuses it into a multiply-add.
func axpy(x, y float32) float32 { return float32(saxpyA*x) + y }

func (s *saxpy) check() error {
	want := make([]float32, len(s.y0))
	for i := range want {
		want[i] = axpy(s.x[i], s.y0[i])
	}
	if i := firstDiff(s.y, want); i >= 0 {
		return fmt.Errorf("y[%d] = %v, want %v", i, s.y[i], want[i])
	}
	return nil
}
