package gorace

import "fmt"

// reduce sums each block's 256 of 2^20 int32s with the kernel's tree, a
// block's partial sums a local array.
type reduce struct{ in, out []int32 }

func setupReduce(shift int) *Job {
	n := 1 << (20 - shift)
	r := &reduce{in: make([]int32, n), out: make([]int32, n/block)}
	g := newRand()
	for i := range r.in {
		r.in[i] = g.Int32N(1000)
	}
	return &Job{Do: r.do, Check: r.check}
}

func (r *reduce) do() {
	forBlocks(len(r.out), func(b int) {
		var sums [block]int32
		copy(sums[:], r.in[b*block:])
		for half := block / 2; half > 0; half /= 2 {
			for i := range half {
				sums[i] += sums[i+half]
			}
		}
		r.out[b] = sums[0]
	})
}

func (r *reduce) check() error {
	want := make([]int32, len(r.out))
	for i, v := range r.in {
		want[i/block] += v
	}
	if i := firstDiff(r.out, want); i >= 0 {
		return fmt.Errorf("block %d sums to %d, want %d", i, r.out[i], want[i])
	}
	return nil
}
