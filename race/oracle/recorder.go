package oracle

import (
	"sync"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Recorder is a gpu.Observer that records every event of the launches it
// watches. It is safe for concurrent use. It keeps no state on the threads
// (Thread.SetObserverState), so it can watch a launch beside a detector,
// as a gpu.DeviceConfig.Observer.
//
// A Recorder is a gpu.Sequencer: the runtime performs each store,
// read-modify-write and strong load under a mutex of the recorder's for
// its element, and the recorder appends the event before the mutex is
// unlocked. So on every executor and any number of cores, each element's
// sequenced events are in a trace in the order they took effect in
// memory, and "the write a strong read reads from" is the last store or
// read-modify-write of its element before it in the trace. The order is
// taken from the runtime's step that performs each access, not from a
// detector beside the recorder.
//
// Each method holds the recorder's mutex while it appends, so the events
// of a trace are in the order their calls took the mutex. LaunchEnd's
// unlock synchronizes before the lock of any later call of Traces, so
// Traces called after Device.Launch returned sees the launch's whole trace.
type Recorder struct {
	stripes [recorderStripes]sync.Mutex // sequence elements (see Sequence)
	mu      sync.Mutex
	running map[*gpu.Grid]*Trace // by the launch's Grid: a Grid.ID is unique on its device only
	done    []*Trace
}

// recorderStripes is how many mutexes sequence a recorder's elements.
const recorderStripes = 64

// Sequences reports true: a Recorder always sequences (see gpu.Sequencer).
func (r *Recorder) Sequences() bool { return true }

// Sequence returns the mutex that orders the sequenced accesses of element
// i of m: one of a few the recorder stripes elements over.
func (r *Recorder) Sequence(m *gpu.Memory, i int) *sync.Mutex {
	h := (m.DeviceID*0x9e3779b97f4a7c15 ^ m.ID*0xbf58476d1ce4e5b9) + uint64(i)
	return &r.stripes[h%recorderStripes]
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder { return &Recorder{running: make(map[*gpu.Grid]*Trace)} }

// Traces returns the traces of the launches that have ended, in the order
// they ended.
func (r *Recorder) Traces() []*Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Trace(nil), r.done...)
}

// LaunchStart starts the trace of launch g.
func (r *Recorder) LaunchStart(g *gpu.Grid) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running[g] = &Trace{Grid: *g}
}

// LaunchEnd ends the trace of launch g.
func (r *Recorder) LaunchEnd(g *gpu.Grid, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.running[g]
	delete(r.running, g)
	tr.Err = err
	r.done = append(r.done, tr)
}

// BlockStart does nothing: a block's first events say it started.
func (r *Recorder) BlockStart(*gpu.Grid, int) {}

// BlockEnd does nothing.
func (r *Recorder) BlockEnd(*gpu.Grid, int) {}

// Access records thread t's access a.
func (r *Recorder) Access(t *gpu.Thread, a *gpu.Access) {
	r.add(t, Event{What: AccessEvent, Access: *a})
}

// Fence records thread t's fence of scope s and order o. Beside a
// detector that sequences too, the runtime reports the fence.sc
// operations that share a scope instance in one order to both
// (gpu.Sequencer), and the recorder's mutex keeps it.
func (r *Recorder) Fence(t *gpu.Thread, s scope.Scope, o gpu.Order) {
	r.add(t, Event{What: FenceEvent, Scope: s, Order: o})
}

// Sync records a completed barrier or collective.
func (r *Recorder) Sync(t *gpu.Thread, s gpu.Sync) {
	r.add(t, Event{What: SyncEvent, Sync: s})
}

// add appends e, made by t, to the trace of t's launch.
func (r *Recorder) add(t *gpu.Thread, e Event) {
	e.Thread, e.Rank = t.Place(), t.ThreadRank()
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.running[t.Grid()]
	tr.Events = append(tr.Events, e)
}
