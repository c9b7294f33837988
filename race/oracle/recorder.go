package oracle

import (
	"sync"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Recorder is a gpu.Observer that records every event of the launches it
// watches. It is safe for concurrent use; its traces are in memory order
// only for launches run under gpu.Config.Deterministic. It keeps no state
// on the threads (Thread.SetObserverState), so it can watch a launch
// beside a detector, as a gpu.DeviceConfig.Observer.
//
// Each method holds the recorder's mutex while it appends, so the events
// of a trace are in the order their calls took the mutex. LaunchEnd's
// unlock synchronizes before the lock of any later call of Traces, so
// Traces called after Device.Launch returned sees the launch's whole trace.
type Recorder struct {
	mu      sync.Mutex
	running map[*gpu.Grid]*Trace // by the launch's Grid: a Grid.ID is unique on its device only
	done    []*Trace
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

// Fence records thread t's fence of scope s.
func (r *Recorder) Fence(t *gpu.Thread, s scope.Scope) {
	r.add(t, Event{What: FenceEvent, Scope: s})
}

// Sync records a completed barrier or collective.
func (r *Recorder) Sync(t *gpu.Thread, s gpu.Sync) {
	r.add(t, Event{What: SyncEvent, Sync: s})
}

// add appends e, made by t, to the trace of t's launch.
func (r *Recorder) add(t *gpu.Thread, e Event) {
	e.Thread, e.Rank = t.Place(), t.Rank()
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.running[t.Grid()]
	tr.Events = append(tr.Events, e)
}
