package oracle

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Trace is the events of one launch in the order the recorder saw them.
type Trace struct {
	Grid   gpu.Grid // the launch, as its observer saw it
	Events []Event  // every thread's steps, in the order recorded
	Err    error    // the error the launch returned
}

// What an [Event] is.
type What uint8

// The events.
const (
	AccessEvent What = iota // a memory access
	FenceEvent              // a memory fence
	SyncEvent               // a completed barrier or warp collective
)

// An Event is one recorded step of one thread, or, for a SyncEvent, one
// completed collective of several.
type Event struct {
	What   What        // which kind of event, so which fields below apply
	Thread scope.Place // the acting thread; for a SyncEvent, the last to arrive
	Rank   int         // the thread's rank in its block
	Access gpu.Access  // AccessEvent: the access
	Scope  scope.Scope // FenceEvent: the fence's scope
	Order  gpu.Order   // FenceEvent: gpu.AcqRel for fence.acq_rel, gpu.SeqCst for fence.sc
	Sync   gpu.Sync    // SyncEvent: which threads met
}

// Strong reports whether an AccessEvent is a strong (non-weak) access.
func (e *Event) Strong() bool { return e.Access.Order != gpu.Weak }

// Stores reports whether an AccessEvent wrote memory: a store, or a
// read-modify-write other than a failed CAS, which only reads.
func (e *Event) Stores() bool {
	return e.Access.Op.Writes() && e.Access.Succeeded()
}

// Barrier reports whether a SyncEvent orders memory: every barrier and
// cooperative-groups sync does; warp intrinsics that exchange values do
// not.
func (e *Event) Barrier() bool {
	switch e.Sync.Kind {
	case gpu.SyncWarp:
		return e.Sync.Op == "syncwarp" || e.Sync.Op == "tile.sync"
	case gpu.SyncThreads, gpu.SyncGrid, gpu.SyncTile:
		return true
	}
	return false
}
