package gpu

import "fmt"

// An Executor is the strategy that runs a block's threads on goroutines.
// Every executor gives a correct kernel the same results; they differ in
// speed and in how finely threads interleave.
type Executor uint8

// The executors.
const (
	// Fibers, the default, runs each resident block on one goroutine and a
	// thread's code as a plain call until it must wait (at a barrier, or
	// yielding while spinning); only then does the thread move to a reused
	// coroutine (iter.Pull) so the next can start. A barrier-free kernel
	// costs a function call per thread; a barrier one coroutine switch per
	// waiting thread.
	Fibers Executor = iota
	// Goroutines runs every thread on its own goroutine: the reference, with
	// the finest interleaving the Go scheduler produces, at the cost of a
	// goroutine start and a scheduler wake-up per thread.
	Goroutines
)

// String returns "fibers" or "goroutines".
func (e Executor) String() string {
	switch e {
	case Fibers:
		return "fibers"
	case Goroutines:
		return "goroutines"
	}
	return fmt.Sprintf("executor(%d)", uint8(e))
}

// An executor runs the threads of one block and provides the block-level
// waiting they need. Each slot has its own executor value, used by one block
// at a time.
type executor interface {
	// run runs every thread of the slot's current block to completion.
	run()
	// barrier makes t wait until every live thread of its block has
	// arrived. It reports whether t must still suspend on its fiber (see
	// Thread.suspend) for the wait, which the fiber executor leaves to its
	// caller; the goroutine executor waits itself and reports false.
	barrier(t *Thread, pred bool) bool
	// exit records that t's kernel returned or failed.
	exit(t *Thread)
	// yield lets other threads run while t spins.
	yield(t *Thread)
	// close releases the executor's resources when its slot ends.
	close()

	// lock and unlock guard the block state that collectives share.
	lock()
	unlock()
	// wait parks t, which the block state records as waiting, until wakeOne.
	// Preconditions: locked; wait returns unlocked.
	wait(t *Thread)
	// wakeOne makes a waiting thread of the block runnable. Preconditions:
	// locked.
	wakeOne(t *Thread)
	// waitOutside parks t until wakeOutside; no lock is held.
	waitOutside(t *Thread)
	// wakeOutside makes t, waiting in waitOutside, runnable; it may be
	// called from any goroutine.
	wakeOutside(t *Thread)
}
