package gpu

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/scope"
)

// A Kernel is the code every thread of a launch runs, CUDA's __global__
// function. It reads its coordinates from t and touches memory through
// [Buffer] methods, which take t as their first argument.
type Kernel func(t *Thread)

// A Thread is one emulated GPU thread: its coordinates in the launch and its
// handle on the runtime. The runtime creates it and passes it to the kernel;
// it must not be used after the kernel returns or by another goroutine. A
// use after the kernel returned panics with an error wrapping
// [ErrThreadEnded] that names the thread.
type Thread struct {
	obs  Observer     // copied from the launch so the access path reads one field
	stop *atomic.Bool // set when the launch must stop at the next runtime call
	dev  *Device      // the launch's device, which allocated every memory the thread may access
	blk  *block
	rank int // linear id in the block
	gid  int // linear id in the grid

	spins int    // strong accesses since the thread last yielded
	fib   *fiber // the fiber running this thread, under the fiber executor
	// weakN counts the thread's weak loads since its last weak store,
	// fence, barrier or collective, for the weak-spin samples (see
	// weakSpin).
	weakN    int
	obsState any

	done   bool // the kernel returned
	parked bool // waiting, in the block's count; guarded by the block
	// held says the thread waits at a barrier or warp collective on a
	// fiber held in a hand-off chain (see fiber.await): it is in no run
	// queue.
	held     bool
	progress bool // a strong write changed memory since the thread last yielded
	// lastFail is the low half of the address of the thread's last failed
	// CAS: enough to tell a retry at one address from a probe of others,
	// and it fits in the padding, where a full pointer grew Thread by a
	// cache line.
	lastFail      uint32
	*syncState    // the slow path's state, kept apart to keep Thread small
	*threadFaults // the thread's errors, its launch's own
}

// threadFaults are the errors a thread records. They are allocated with
// the launch's Threads, not kept with its syncState, because a Thread
// used after its kernel returned records its fault here: its syncState
// may then be another launch's thread's (see statePool).
type threadFaults struct {
	// flt is the thread's latest fault (a failed access check: see at),
	// recorded before the access panics with a pointer to it, so that a
	// kernel that recovers the panic cannot lose the error. err is the
	// first error the runtime failed the thread with otherwise (see
	// fail), and errSite its kernel line. flt.t is nil while the thread
	// has no fault.
	flt     fault
	err     error
	errSite Site
}

// syncState is the state of a thread that only barriers, collectives and
// observer reports touch. It lives beside the slot's threads, so that the
// barrier-free path does not stride over it, and its device keeps it
// across launches (see statePool): only the running thread touches it,
// never a Thread used after its kernel returned, whose every call fails
// its stop check first.
//
// Its first fields are those every barrier touches, together in its first
// cache line.
type syncState struct {
	at     waitInfo      // what the thread waits at, while it waits; set by the thread, cleared by it or its releaser
	waitPC callSite      // the call site of its last barrier, when divergence is checked
	coll   *round        // the warp collective it last completed
	acc    Access        // the access being reported to the observer
	conv   uint64        // the group its last convergence point found
	wakeCh chan struct{} // Goroutines: wakes it from wait
	pollAt uintptr       // the element of the thread's last observed access if a strong load or a read-modify-write but a CAS, else 0 (see polled)
	pollV  uint64        // the value that load read
	seq    *sequencers   // the launch's sequencing observers, nil if none (see Sequencer)
	// spinMem, spinIdx and spinOp are the access the thread yields at
	// while spinning, for stall reports; spinMem is nil otherwise.
	spinMem *Memory
	spinIdx int
	spinOp  Op
	// yieldSeq numbers the thread's last yield among its block's, for the
	// livelock watch.
	yieldSeq uint64
	weak     weakPoll
}

// ThreadIdx returns the thread's index in its block, CUDA's threadIdx.
func (t *Thread) ThreadIdx() Dim3 { return t.blk.l.g.BlockDim.index(t.rank) }

// BlockIdx returns the block's index in the grid, CUDA's blockIdx.
func (t *Thread) BlockIdx() Dim3 { return t.blk.idx }

// BlockDim returns the block's extent, CUDA's blockDim.
func (t *Thread) BlockDim() Dim3 { return t.blk.l.g.BlockDim }

// GridDim returns the grid's extent, CUDA's gridDim.
func (t *Thread) GridDim() Dim3 { return t.blk.l.g.GridDim }

// ThreadRank returns the thread's linear index in its block, x fastest
// (cooperative groups' thread_block::thread_rank).
func (t *Thread) ThreadRank() int { return t.rank }

// BlockRank returns the block's linear index in the grid, x fastest.
func (t *Thread) BlockRank() int { return t.blk.id }

// GlobalID returns the thread's linear index in the grid:
// Block()*BlockDim().Size() + Rank(). For 1-D launches it equals
// blockIdx.x*blockDim.x + threadIdx.x.
func (t *Thread) GlobalID() int { return t.gid }

// Lane returns the thread's lane in its warp: Rank() mod the warp size.
func (t *Thread) Lane() int { return t.rank & (t.blk.l.g.WarpSize - 1) }

// Warp returns the index of the thread's warp in its block.
func (t *Thread) Warp() int { return t.rank / t.blk.l.g.WarpSize }

// GlobalWarp returns the index of the thread's warp in the grid.
func (t *Thread) GlobalWarp() int { return t.blk.id*t.blk.l.g.Warps + t.Warp() }

// Place returns the coordinates [scope.Common] compares: the thread's
// device (its [Device.ID]), its launch (its [Grid.ID]), and its global
// thread, warp and block ids. Both numbers count from 1, so two threads of
// different launches or devices never share a warp or block scope.
func (t *Thread) Place() scope.Place {
	g := &t.blk.l.g
	return scope.Place{Device: t.dev.id, Launch: g.ID, Thread: t.gid, Warp: t.GlobalWarp(), Block: t.blk.id}
}

// Grid returns the description of the launch the thread belongs to.
func (t *Thread) Grid() *Grid { return &t.blk.l.g }

// ObserverState returns the value last stored by SetObserverState, for an
// Observer that keeps per-thread state on the thread itself.
func (t *Thread) ObserverState() any { return t.obsState }

// SetObserverState stores v on the thread for the Observer. The runtime
// clears it when the Thread is reused for another thread.
func (t *Thread) SetObserverState(v any) { t.obsState = v }

// check stops the thread if its launch has been stopped. It is the first
// thing every runtime call does, so cancellation takes effect at the next
// call.
func (t *Thread) check() {
	t.weakN = 0 // a barrier, fence or collective restarts the weak-load count
	if t.stop.Load() {
		t.stopped()
	}
}
