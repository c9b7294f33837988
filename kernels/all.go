package kernels

// All returns the whole catalog: ScoR's microbenchmarks, then its
// applications.
func All() Catalog {
	c := Micros()
	c = append(c, ScoR()...)
	return c
}

// ScoR returns ScoR's seven applications (shared/research/scor.md §3), each
// with one injection per race ScoR injects into it (26 in all) plus the
// races independent thread scheduling adds to the reduction's warp tail
// and the tree search.
func ScoR() Catalog {
	return Catalog{MatMul(), Reduction(), Rule110(), Coloring(), Connectivity(), Conv1D(), TreeSearch()}
}
