package gpu

// weakSpin is the period of the weak-load samples a spin is found by, and
// weakVerify how many loads after a repeated sample must repeat it too.
// A thread's weak loads count from its last weak store, fence, barrier or
// collective; the weakSpin-th is a sample, and if the 2*weakSpin-th reads
// the same element and value with no strong access or yield in between,
// the next weakVerify loads are checked one by one. If they repeat it as
// well, the thread is polling the element: it yields as a spinning atomic
// does, and is sampled again weakSpin loads later. The access path pays
// one increment and one masked test per weak load; weakSpin is a power of
// two for the mask, and large enough that a kernel re-reading a constant
// a few hundred times in a row never yields for it. The check one by one
// tells a poll from a loop over weakSpin elements whose samples repeat.
const (
	weakSpin   = 512
	weakVerify = 32
)

// weakSpinAt is what a stall report says a thread caught polling a weak
// load was doing (Stuck.At).
const weakSpinAt = "polling a weak load; spin with LoadVolatile or AtomicLoad"

// weakPoll is the slow-path record of a thread's weak-load samples. The
// thread's weakN tells weakPolled where the thread is: weakSpin at the
// first sample after a reset, 2*weakSpin at a sample weakSpin loads after
// the last, 3*weakSpin while checking loads one by one (weakPolled sets
// weakN just below it).
type weakPoll struct {
	at     uintptr // the element the sample read
	v      uint64  // the value it read
	spins  int     // the thread's strong-access count at the sample
	yields uint64  // yieldsNow at the sample
	// yieldsNow counts the thread's yields (see Thread.yieldSpin). With
	// spins it tells whether strong accesses came between two samples:
	// each adds to the spin count, which only a yield resets. Strong
	// accesses and atomics thus need no bookkeeping of their own.
	yieldsNow uint64
	left      int // loads still to check one by one
	// mem and idx are the element the thread was last caught polling; mem
	// is nil once a sample shows it is not polling it.
	mem *Memory
	idx int
	// yielding is set while the thread yields for a poll.
	yielding bool
}

// weakPolled runs at a weak load of element i of m, at address p, that
// read v, when the thread's weak-load count calls for a sample or a check
// (see weakSpin). It returns v, so that the access path need not keep v
// across the call.
//
//go:noinline
func (t *Thread) weakPolled(m *Memory, i int, p uintptr, v uint64) uint64 {
	w := &t.weak
	repeats := p == w.at && v == w.v && t.spins == w.spins && w.yieldsNow == w.yields
	switch {
	case t.weakN == weakSpin || !repeats: // a new sample
		w.at, w.v, w.spins, w.yields, w.mem = p, v, t.spins, w.yieldsNow, nil
		t.weakN = weakSpin
		return v
	case t.weakN == 2*weakSpin: // a repeated sample: check the loads after it
		w.left = weakVerify
		t.weakN = 3*weakSpin - 1
		return v
	case w.left > 1:
		w.left--
		t.weakN = 3*weakSpin - 1
		return v
	}
	// polling
	w.mem, w.idx, w.yielding = m, i, true
	t.yieldAt(m, i, OpLoad)
	w.yielding = false
	w.spins, w.yields = t.spins, w.yieldsNow
	t.weakN = weakSpin
	return v
}

// weakSpinning reports whether the thread was polling a weak load when its
// launch stopped it, r being the value its root recovered: it was
// yielding for the poll, or stopped at a load of the element it was last
// caught polling.
func (t *Thread) weakSpinning(r any) bool {
	w := &t.weak
	f, ok := r.(*fault)
	return w.yielding || w.mem != nil && ok && f.m == w.mem && f.i == w.idx && f.op == OpLoad
}
