package kernels

// All returns the whole catalog: ScoR's microbenchmarks, then its
// applications and the library algorithms.
func All() Catalog {
	c := Micros()
	c = append(c, ScoR()...)
	c = append(c, Library()...)
	return c
}

// ScoR returns ScoR's seven applications (shared/research/scor.md §3), each
// with one injection per race ScoR injects into it (26 in all) plus the
// races independent thread scheduling adds to the reduction's warp tail
// and the tree search.
func ScoR() Catalog {
	return Catalog{MatMul(), Reduction(), Rule110(), Coloring(), Connectivity(), Conv1D(), TreeSearch()}
}

// Library returns GPU-style library algorithms a Go programmer reaches for,
// each race-free and with realistic races to inject.
func Library() Catalog {
	return Catalog{Reduce(), Scan(), Histogram(), HashTable(), BFS(), Components()}
}
