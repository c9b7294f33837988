package kernels

// All returns the whole catalog: ScoR's microbenchmarks, then its
// applications, iGUARD's extra workloads, the library algorithms and the
// contention workloads.
func All() Catalog {
	c := Micros()
	c = append(c, ScoR()...)
	c = append(c, Extras()...)
	c = append(c, Library()...)
	c = append(c, Contention()...)
	return c
}

// Extras returns the workloads iGUARD (SOSP'21) adds to ScoR: cooperative
// groups, a hand-written grid barrier, per-thread locking in a warp and
// warp-aggregated atomics (SOSP'21 §7).
func Extras() Catalog {
	return Catalog{ReduceMultiBlock(), ConjugateGradient(), GridBarrier(), ThreadLock(), WarpAggregated()}
}

// ScoR returns ScoR's seven applications (ScoRD, ISCA'20), each
// with one injection per race ScoR injects into it (26 in all) plus the
// races independent thread scheduling adds to the reduction's warp tail
// and the tree search.
func ScoR() Catalog {
	return Catalog{MatMul(), Reduction(), Rule110(), Coloring(), Connectivity(), Conv1D(), TreeSearch()}
}

// Library returns GPU-style library algorithms a Go programmer reaches for,
// each race-free and with realistic races to inject.
func Library() Catalog {
	return Catalog{Reduce(), Scan(), Histogram(), Compact(), RadixSort(), HashTable(), BFS(), CoopBFS(), Components(), TiledMatMul()}
}
