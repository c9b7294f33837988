package device

import "github.com/warpguard/warpguard/gpu"

// A flag selects indices of in: sel reports whether index i, holding x,
// is selected, with prev the element before it (the zero value at index
// 0) if usePrev. The kernels load each element once a pass, in order, so
// prev costs one load a thread. sel runs twice per index and in must be
// no buffer a launch of the primitive writes.
type flag[T gpu.Elem] struct {
	in      gpu.Buffer[T]
	sel     func(i int, x, prev T) bool
	usePrev bool
}

// visit calls f for each index of [lo, hi) in order with its element and
// whether it is selected.
func (fl flag[T]) visit(t *gpu.Thread, lo, hi int, f func(i int, x T, sel bool)) {
	var prev T
	if fl.usePrev && lo > 0 {
		prev = fl.in.Load(t, lo-1)
	}
	for i := lo; i < hi; i++ {
		x := fl.in.Load(t, i)
		f(i, x, fl.sel(i, x, prev))
		prev = x
	}
}

// count returns how many of the indices [lo, hi) are selected.
func (fl flag[T]) count(t *gpu.Thread, lo, hi int) int32 {
	var c int32
	fl.visit(t, lo, hi, func(_ int, _ T, sel bool) {
		if sel {
			c++
		}
	})
	return c
}

// flagged counts each thread's selected indices and scans the counts:
// offsets[g] is the number selected in the items of the threads before g,
// and total the number in all of them.
func flagged[T gpu.Elem](r *run, fl flag[T]) (offsets gpu.Buffer[int32], total int, err error) {
	n := fl.in.Len()
	threads := spans(n)
	offsets = alloc[int32](r, "offsets", threads+1) // offsets[threads] stays 0 and scans to the total
	err = r.launch("count", threads, func(t *gpu.Thread) {
		if lo, hi := span(t, n); lo < hi {
			offsets.Store(t, t.GlobalID(), fl.count(t, lo, hi))
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

// A place moves index i, holding x, of the input to its output: before is
// the number of selected indices below i.
type place[T gpu.Elem] func(t *gpu.Thread, i, before int, x T, selected bool)

// scatter places every index: each thread places its items from its
// offset, the number selected before them.
func scatter[T gpu.Elem](r *run, fl flag[T], offsets gpu.Buffer[int32], p place[T]) error {
	n := fl.in.Len()
	return r.launch("scatter", spans(n), func(t *gpu.Thread) {
		lo, hi := span(t, n)
		if lo == hi {
			return
		}
		before := int(offsets.Load(t, t.GlobalID()))
		fl.visit(t, lo, hi, func(i int, x T, sel bool) {
			p(t, i, before, x, sel)
			if sel {
				before++
			}
		})
	})
}
