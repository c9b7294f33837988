package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
)

// stencil is the computation the grid-barrier kernels separate with their
// barriers: rounds of next[i] = cur[i] + cur[i+blockDim] (mod n), a value
// from the next block over, so every round needs every block's previous
// one. The kernels differ only in the barrier between rounds.
type stencil struct {
	blocks, threads, rounds int
	a, b                    gpu.Buffer[int32] // cur and next, swapped each round
	host                    []int32
}

func newStencil(d *gpu.Device, seed int64, blocks, threads, rounds int) stencil {
	s := stencil{blocks: blocks, threads: threads, rounds: rounds}
	s.host = randInt32s(newRand(seed), blocks*threads, 1000)
	s.a, s.b = gpu.FromHost(d, "a", s.host), gpu.Alloc[int32](d, "b", len(s.host))
	return s
}

// check runs the rounds sequentially and compares the last round's buffer.
func (s *stencil) check() error {
	cur := append([]int32(nil), s.host...)
	next := make([]int32, len(cur))
	for range s.rounds {
		for i := range cur {
			next[i] = cur[i] + cur[(i+s.threads)%len(cur)]
		}
		cur, next = next, cur
	}
	out := s.a
	if s.rounds%2 == 1 {
		out = s.b
	}
	return sameAll(fmt.Sprintf("stencil after %d rounds", s.rounds), out.Host(), cur)
}
