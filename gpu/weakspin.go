package gpu

// weakSpin is the length of the weak-load streaks a spin is detected in:
// a thread whose weak loads of one element number 1+2*weakSpin in a row,
// reading the same value at the 1+weakSpin-th and the last, with
// no strong access, atomic, weak store, fence, barrier or collective in
// between, is polling that element, and yields then and every weakSpin
// loads after. It is a power of two so that the access path tests it with
// a mask, and large enough that a kernel re-reading a constant a few
// hundred times in a row never yields for it.
const weakSpin = 512

// weakSpinAt is what a stall report says a thread caught polling a weak
// load was doing (Stuck.At).
const weakSpinAt = "polling a weak load, which CUDA may never reread: spin with LoadVolatile or AtomicLoad"

// weakPoll is a thread's record of its current weak-load streak, taken
// every weakSpin loads of it.
type weakPoll struct {
	v      uint64 // the value the sample read
	spins  int    // the thread's strong-access count at the sample
	yields uint64 // yieldsNow at the sample
	// yieldsNow counts the thread's yields (see Thread.yieldSpin). With
	// spins it tells whether strong accesses came between two samples:
	// each adds to the spin count, which only a yield resets. The access
	// path of strong accesses and atomics thus needs no bookkeeping of
	// its own.
	yieldsNow uint64
	// mem and idx are the element the thread was last caught polling; mem
	// is nil once a sample shows the streak is not a poll.
	mem *Memory
	idx int
	// yielding is set while the thread yields for a poll.
	yielding bool
}

// weakPolled runs at every weakSpin-th weak load of element i of m in a
// row, which read v. If the streak's last sample read the same value and
// no strong access or yield came since (the thread's spin count and
// yields are unchanged), the thread is polling: it yields as a spinning
// atomic does, so that the writer it waits for runs and the livelock
// watchdog sees it spin. Otherwise the load is the streak's new sample.
//
//go:noinline
func (t *Thread) weakPolled(m *Memory, i int, v uint64) {
	w := &t.weak
	if t.weakN == weakSpin || v != w.v || t.spins != w.spins || w.yieldsNow != w.yields {
		w.v, w.spins, w.yields, w.mem = v, t.spins, w.yieldsNow, nil
		return
	}
	w.mem, w.idx, w.yielding = m, i, true
	n := t.weakN
	t.yieldAt(m, i, OpLoad)
	w.yielding = false
	t.weakN = n // the fiber executor's resume checks for a stop, which ends a streak
	w.spins, w.yields = t.spins, w.yieldsNow
}

// weakSpinning reports whether the thread was polling a weak load when its
// launch stopped it: it was yielding for the poll, or its streak has gone
// on since a sample caught it.
func (t *Thread) weakSpinning() bool {
	return t.weak.yielding || t.weak.mem != nil && t.weakN >= 2*weakSpin
}
