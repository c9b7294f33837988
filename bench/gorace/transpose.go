package gorace

import "fmt"

// transpose transposes a matrix of 2^20 int32s through 16×16 tiles, a
// block's tile a local array as a block's is shared memory.
type transpose struct {
	w, h    int // of the input; the output is h wide and w high
	in, out []int32
}

func setupTranspose(shift int) *Job {
	w, h := side2D(20 - shift)
	tr := &transpose{w: w, h: h, in: make([]int32, w*h), out: make([]int32, w*h)}
	r := newRand()
	for i := range tr.in {
		tr.in[i] = r.Int32N(1 << 30)
	}
	return &Job{Do: tr.do, Check: tr.check}
}

func (tr *transpose) do() {
	bw := tr.w / tile
	forBlocks(bw*(tr.h/tile), func(b int) {
		var t [tile][tile + 1]int32
		bx, by := b%bw*tile, b/bw*tile
		for y := range tile {
			for x := range tile {
				t[y][x] = tr.in[(by+y)*tr.w+bx+x]
			}
		}
		for y := range tile {
			for x := range tile {
				tr.out[(bx+y)*tr.h+by+x] = t[x][y]
			}
		}
	})
}

func (tr *transpose) check() error {
	for y := range tr.h {
		for x := range tr.w {
			if got, want := tr.out[x*tr.h+y], tr.in[y*tr.w+x]; got != want {
				return fmt.Errorf("out(%d, %d) = %d, want %d", y, x, got, want)
			}
		}
	}
	return nil
}
