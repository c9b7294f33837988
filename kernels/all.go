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
	return Catalog{IguardReduceMultiBlock(), IguardConjugateGradient(), IguardGridBarrier(), IguardThreadLock(), IguardWarpAggregated()}
}

// ScoR returns ScoR's seven applications (ScoRD, ISCA'20), each
// with one injection per race ScoR injects into it (26 in all) plus the
// races independent thread scheduling adds to the reduction's warp tail
// and the tree search.
func ScoR() Catalog {
	return Catalog{ScorMatrixMult(), ScorReduction(), ScorRule110(), ScorGraphColoring(), ScorGraphConnectivity(), Scor1DConv(), ScorUTS()}
}

// Library returns GPU-style library algorithms a Go programmer reaches for,
// each race-free and with realistic races to inject.
func Library() Catalog {
	return Catalog{LibReduce(), LibScan(), LibHistogram(), LibCompact(), LibRadixSort(), LibHashTable(), LibBFS(), LibBFSCoop(), LibComponents(), LibMatMul()}
}
