package gpu

import (
	"fmt"

	"github.com/warpguard/warpguard/scope"
)

// An Observer watches a launch: every memory access, fence and completed
// barrier or collective of every thread, and the start and end of the launch
// and of each block. Package race implements it; gpu never imports race.
//
// Methods are called inline on the goroutine of the thread that caused the
// event, so many calls run concurrently and an Observer must be safe for
// that. Calls made by one thread follow its program order. A *Thread passed
// to a method is valid only during the call: the runtime reuses Thread values
// across blocks.
//
// With no observer configured, an access costs the runtime one nil check.
type Observer interface {
	// LaunchStart is called once before any thread of the launch runs, on
	// the goroutine that called Launch. It may make the launch wait there
	// (package race does, for room among the launches running beside it);
	// the launches running meanwhile go on, and a wait should end when
	// g.Done is closed. A panic fails the launch, which then runs no
	// thread and gets no LaunchEnd; if the launch's context had ended by
	// then, its error wraps the context's too. A panic with an error
	// value, this method's or another's, is the observer's refusal: the
	// launch's error wraps that error as it is; any other panic (a
	// runtime.Error included) is a *PanicError with the observer's stack.
	LaunchStart(g *Grid)
	// LaunchEnd is called once after every thread has finished, with the
	// error Launch is about to return.
	LaunchEnd(g *Grid, err error)
	// BlockStart is called before the first thread of a block runs, on the
	// goroutine that will run the block; BlockEnd after its last thread has
	// finished. A block's shared memories live from BlockStart to BlockEnd.
	BlockStart(g *Grid, block int)
	BlockEnd(g *Grid, block int)
	// Access is called after thread t performed the access *a, except for
	// a release store, which is reported before its value reaches memory:
	// a release orders the thread's earlier accesses before any thread
	// that reads the value, so the observer learns of it first. Like t, a
	// is valid only during the call: the runtime reuses it for the
	// thread's next access. Passing it by pointer keeps the call cheap:
	// an Access does not fit in registers. An observer that implements
	// [Sequencer] gets the calls for each element's stores,
	// read-modify-writes and strong loads in the order they took effect.
	Access(t *Thread, a *Access)
	// Fence is called when t executes a memory fence of scope s and order
	// o: [SeqCst] for PTX's fence.sc (Thread.Fence and the ThreadFence
	// calls), [AcqRel] for fence.acq_rel (Thread.FenceAcqRel). An access
	// of order SeqCst is preceded by a Fence call of order SeqCst and the
	// access's scope, as PTX defines a seq_cst operation: fence.sc, then
	// the operation with acquire (load), release (store) or acq_rel
	// (read-modify-write) semantics. An observer that implements
	// [Sequencer] gets the SeqCst fences of a device's launches in one
	// order, the order every such observer of the device sees.
	Fence(t *Thread, s scope.Scope, o Order)
	// Sync is called once per completed barrier or collective, while every
	// participant that arrived is still held inside it: each participant's
	// operations before the barrier happen before the call, and none of
	// its operations after the barrier. t is the last participant to
	// arrive, or, when a thread's exit completes the round, one of those
	// waiting (the call then runs on the exiting thread's goroutine).
	Sync(t *Thread, s Sync)
}

// A Grid describes one launch to an [Observer]. Its fields are set before
// LaunchStart and never change.
type Grid struct {
	ID          uint64 // unique on its device
	Name        string // LaunchConfig.Name
	Device      *Device
	GridDim     Dim3
	BlockDim    Dim3
	Blocks      int // GridDim.Size()
	BlockSize   int // threads per block, BlockDim.Size()
	Threads     int // Blocks * BlockSize
	WarpSize    int
	Warps       int // warps per block, the last one possibly partial
	Cooperative bool
	// Done is closed when the launch's context ends: cancelled, or past
	// its deadline, the device's or LaunchConfig.Timeout. It is nil for a
	// launch that nothing can stop so.
	Done <-chan struct{}
}

// An Op is the operation of an [Access].
type Op uint8

// The operations. Every Op from OpAdd on is an atomic read-modify-write.
const (
	OpLoad  Op = iota // read
	OpStore           // write
	OpAdd             // atomicAdd
	OpSub             // atomicSub
	OpExch            // atomicExch
	OpCAS             // atomicCAS
	OpMin             // atomicMin
	OpMax             // atomicMax
	OpAnd             // atomicAnd
	OpOr              // atomicOr
	OpXor             // atomicXor
	OpInc             // atomicInc: old >= arg ? 0 : old+1
	OpDec             // atomicDec: old == 0 || old > arg ? arg : old-1
)

var opNames = [...]string{"load", "store", "atomicAdd", "atomicSub", "atomicExch", "atomicCAS",
	"atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor", "atomicInc", "atomicDec"}

// String returns the operation's CUDA-style name, such as "load" or "atomicCAS".
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// IsRMW reports whether o is an atomic read-modify-write.
func (o Op) IsRMW() bool { return o >= OpAdd }

// Reads reports whether o reads memory: loads and every read-modify-write.
func (o Op) Reads() bool { return o != OpStore }

// Writes reports whether o may write memory: stores and every
// read-modify-write (a failed CAS counts, as it does for CUDA's detectors).
func (o Op) Writes() bool { return o != OpLoad }

// An Order is the memory-ordering strength of an [Access].
type Order uint8

// The orders, from weakest.
const (
	Weak     Order = iota // a plain access: no ordering, may be torn or cached in CUDA
	Volatile              // CUDA volatile: strong and relaxed at system scope (PTX ld/st.volatile), but not an atomic
	Relaxed               // a relaxed atomic: read-modify-writes, atomic_ref relaxed loads and stores
	Acquire               // memory_order_acquire: a load or read-modify-write that acquires what it reads
	Release               // memory_order_release: a store or read-modify-write that releases what it writes
	AcqRel                // memory_order_acq_rel: a read-modify-write that acquires and releases; a fence.acq_rel
	SeqCst                // memory_order_seq_cst: fence.sc at the operation's scope, then the operation as acquire, release or acq_rel; a fence.sc
)

// Acquires reports whether an access of order o acquires what it reads:
// Acquire, AcqRel and SeqCst do.
func (o Order) Acquires() bool { return o == Acquire || o == AcqRel || o == SeqCst }

// Releases reports whether an access of order o releases what it writes:
// Release, AcqRel and SeqCst do.
func (o Order) Releases() bool { return o == Release || o == AcqRel || o == SeqCst }

// String returns "weak", "volatile", "relaxed", "acquire", "release",
// "acq_rel" or "seq_cst".
func (o Order) String() string {
	switch o {
	case Weak:
		return "weak"
	case Volatile:
		return "volatile"
	case Relaxed:
		return "relaxed"
	case Acquire:
		return "acquire"
	case Release:
		return "release"
	case AcqRel:
		return "acq_rel"
	case SeqCst:
		return "seq_cst"
	}
	return fmt.Sprintf("order(%d)", uint8(o))
}

// An Access describes one element access to an [Observer].
type Access struct {
	Mem    *Memory
	Index  int    // element index
	Offset uint64 // byte offset of the element in Mem; Mem.Base+Offset is its address
	Size   uint8  // bytes accessed
	Op     Op
	Order  Order
	// Scope is the access's scope: the scope argument of atomics, acquire
	// loads and release stores; System for volatile accesses, as PTX
	// .volatile is relaxed at system scope; Thread for weak accesses.
	Scope scope.Scope
	// Raw bit patterns (the low Size bytes) of the values involved: Old is
	// the value read (loads and RMWs), Arg the value written or the RMW's
	// operand, Cmp the comparand of a CAS.
	Old, Arg, Cmp uint64
	// Sequenced reports that the runtime holds the mutex Sequence(Mem,
	// Index) of each sequencing observer of the launch while it reports
	// the access (see [Sequencer]), so that such an observer may guard its
	// own state of the element with that mutex without locking it again.
	// An observer that may also be reached another way (wrapped in an
	// observer that does not sequence) asks [Thread.SequencedBy] whether
	// it is one of them. It is false for accesses the runtime does not
	// sequence, and when no observer of the launch sequences.
	Sequenced bool
	// ReadOnly reports a weak load through a [ReadOnly] view of global
	// memory, whose elements ViewLo to ViewLo+ViewLen-1 of Mem the kernel
	// promises are not written while the launch runs (see [ReadOnly]). An
	// observer that does not check the promise may take it as any weak
	// load.
	ReadOnly        bool
	ViewLo, ViewLen int
}

// Addr returns the byte address of the accessed element in its space.
func (a Access) Addr() uint64 { return a.Mem.Base + a.Offset }

// Succeeded reports whether a CAS access swapped: its old value matched the
// comparand. For other operations it reports true.
func (a Access) Succeeded() bool { return a.Op != OpCAS || a.Old == a.Cmp }

// A SyncKind is the kind of barrier or collective a [Sync] reports.
type SyncKind uint8

// The kinds of synchronization reported to Observer.Sync.
const (
	SyncThreads SyncKind = iota // __syncthreads and its count/and/or variants; cg block sync
	SyncWarp                    // __syncwarp(mask) and warp-collective intrinsics
	SyncGrid                    // cg::grid_group::sync
	// SyncTile is the sync of a cooperative-groups tile larger than a warp:
	// the block's ranks First to First+Count-1 met (less any that had
	// exited, under DivergenceWarn or DivergenceAllow). Tiles up to a warp
	// report SyncWarp.
	SyncTile
)

// String returns "syncthreads", "syncwarp", "grid.sync" or "tile.sync".
func (k SyncKind) String() string {
	switch k {
	case SyncThreads:
		return "syncthreads"
	case SyncWarp:
		return "syncwarp"
	case SyncGrid:
		return "grid.sync"
	case SyncTile:
		return "tile.sync"
	}
	return fmt.Sprintf("sync(%d)", uint8(k))
}

// A Sync describes a completed barrier or collective: which threads met.
type Sync struct {
	Kind  SyncKind
	Block int    // linear block id; -1 for SyncGrid
	Warp  int    // global warp id for SyncWarp; -1 otherwise
	Mask  uint64 // SyncWarp: the lanes that met; others: 0
	// Op names the collective for SyncWarp ("syncwarp", "shfl", "ballot",
	// "tile.sync", ...) and SyncTile ("tile.sync"), and is empty for
	// block and grid barriers.
	Op string
	// First and Count give the block ranks of a SyncTile; zero otherwise.
	First, Count int
}
