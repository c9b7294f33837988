// Package gorace holds plain-Go twins of the large-grid kernels
// (kernels.Large): the same work at the same sizes, written as a Go
// programmer writes it without a GPU. The grid's blocks are split into one
// contiguous chunk per processor, each chunk on its own goroutine; a
// block's threads become loops, and a barrier the end of one loop.
//
// Its benchmarks, built once plainly and once with -race, put the cost of
// Go's own race detector on that work beside warpguard's on the kernels:
//
//	go test -run '^$' -bench . ./bench/gorace
//	go test -race -run '^$' -bench . ./bench/gorace
//
// bench/large.sh runs both with warpguard's bench and prints one table.
package gorace

import (
	"math/rand/v2"
	"runtime"
	"sync"
)

// A Twin is the plain-Go version of one large kernel.
type Twin struct {
	Name string // the kernel's name, such as "large/saxpy"
	// Setup makes the input, 2^shift times smaller than the kernel's at
	// full size, and returns the job that works on it.
	Setup func(shift int) *Job
}

// A Job is a twin's prepared input.
type Job struct {
	// Do does the work on every processor; it may run again, on its own
	// output, with the same cost.
	Do func()
	// Check compares the output of one Do with the sequential reference,
	// returning an error that says what differs.
	Check func() error
}

// Twins returns the twins of the large-grid group, in its order.
func Twins() []Twin {
	return []Twin{
		{"large/saxpy", setupSAXPY}, {"large/stencil", setupStencil}, {"large/transpose", setupTranspose},
		{"large/reduce", setupReduce}, {"large/histogram", setupHistogram},
	}
}

// The shape of the kernels' grids: blocks of 256 threads, or of 16×16 for
// the two-dimensional ones, and 256 histogram bins.
const (
	block = 256
	tile  = 16
	bins  = 256
)

// forBlocks calls f for every block in [0, blocks): the blocks are split
// into one contiguous chunk per processor (GOMAXPROCS), each chunk's
// blocks called in order on a goroutine of its own. Every call of f
// synchronizes before forBlocks returns.
func forBlocks(blocks int, f func(b int)) {
	p := max(min(runtime.GOMAXPROCS(0), blocks), 1)
	var wg sync.WaitGroup
	for c := range p {
		lo, hi := blocks*c/p, blocks*(c+1)/p
		wg.Go(func() {
			for b := lo; b < hi; b++ {
				f(b)
			}
		})
	}
	wg.Wait()
}

// newRand returns the generator of an input.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 0x5eed_c0de_1234_5678)) }

// side2D returns the width and height of a 2D grid of 2^log2 elements,
// the width the larger when log2 is odd.
func side2D(log2 int) (w, h int) { return 1 << ((log2 + 1) / 2), 1 << (log2 / 2) }

// firstDiff returns the first index where got and want differ, or -1.
func firstDiff[T comparable](got, want []T) int {
	for i := range want {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}
