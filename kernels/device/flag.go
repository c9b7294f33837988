package device

import "github.com/warpguard/warpguard/gpu"

// A flag reports whether index i of the input is selected. It runs inside
// kernels, twice per index, so it must read only what no launch of the
// primitive writes.
type flag func(t *gpu.Thread, i int) bool

// A place moves index i of the input to its output: before is the number
// of selected indices below i.
type place func(t *gpu.Thread, i, before int, selected bool)

// flagged counts each thread's selected indices of n and scans the
// counts: offsets[g] is the number selected in the items of the threads
// before g, and total the number in all of them.
func flagged(r *run, n int, f flag) (offsets gpu.Buffer[int32], total int, err error) {
	threads := spans(n)
	offsets = alloc[int32](r, "offsets", threads+1) // offsets[threads] stays 0 and scans to the total
	err = r.launch("count", threads, func(t *gpu.Thread) {
		if lo, hi := span(t, n); lo < hi {
			offsets.Store(t, t.GlobalID(), count(t, lo, hi, f))
		}
	})
	if err != nil {
		return offsets, 0, err
	}
	if err := scan(r, offsets, offsets, new(int32(0)), gpu.Add[int32]); err != nil {
		return offsets, 0, err
	}
	host := offsets.Host()
	return offsets, int(host[threads]), nil
}

// count returns how many of the indices [lo, hi) are selected.
func count(t *gpu.Thread, lo, hi int, f flag) int32 {
	var c int32
	for i := lo; i < hi; i++ {
		if f(t, i) {
			c++
		}
	}
	return c
}

// scatter places every index of n: each thread places its items from its
// offset, the number selected before them.
func scatter(r *run, n int, offsets gpu.Buffer[int32], f flag, p place) error {
	return r.launch("scatter", spans(n), func(t *gpu.Thread) {
		lo, hi := span(t, n)
		if lo == hi {
			return
		}
		before := int(offsets.Load(t, t.GlobalID()))
		for i := lo; i < hi; i++ {
			sel := f(t, i)
			p(t, i, before, sel)
			if sel {
				before++
			}
		}
	})
}
