package kernels

import "github.com/warpguard/warpguard/gpu"

// The large-grid group launches one thread per element over millions of
// elements, as real GPU programs do, where the rest of the catalog keeps
// its grids small. Its kernels are not part of All, so that the default
// suite and the module's tests stay fast; a command selects them by name
// (warpguard suite -kernels 'large/*').

// largeBlock is the threads of a block of every large kernel: 256, or a
// 16×16 tile for the two-dimensional ones.
const (
	largeBlock = 256
	largeTile  = 16
)

// maxShrink bounds LargeShrunk's shift: the smallest grids keep a few
// blocks in each dimension.
const maxShrink = 10

// Large returns the large-grid group at full size: SAXPY over 2^22
// threads, and a 2D 5-point stencil, a shared-memory tiled transpose, a
// block reduction and a histogram over 2^20, one element per thread. Each has a
// clean configuration and an injected race, and checks its output against
// a sequential reference.
func Large() Catalog { return LargeShrunk(0) }

// LargeShrunk returns the large-grid group with every grid 2^shift times
// smaller than Large's, for tests that cannot afford millions of threads;
// shift is clamped to [0, 10]. The kernels keep their names and
// injections.
func LargeShrunk(shift int) Catalog {
	shift = min(max(shift, 0), maxShrink)
	return Catalog{
		largeSAXPY(22 - shift), largeStencil(20 - shift), largeTranspose(20 - shift),
		largeReduce(20 - shift), largeHistogram(20 - shift),
	}
}

// side2D returns the width and height of a 2D grid of 2^log2 elements,
// the width the larger when log2 is odd.
func side2D(log2 int) (w, h int) {
	return 1 << ((log2 + 1) / 2), 1 << (log2 / 2)
}

// tileCfg is the configuration of a 2D launch of largeTile×largeTile
// blocks over a w×h grid of elements.
func tileCfg(name string, w, h int) gpu.LaunchConfig {
	return gpu.LaunchConfig{
		Name:  name,
		Grid:  gpu.Dim3{X: w / largeTile, Y: h / largeTile},
		Block: gpu.Dim3{X: largeTile, Y: largeTile},
	}
}
