package oracle

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// fenceSC adds PTX's Fence-SC edges: the fence.sc operations of a trace
// are totally ordered in the order they were recorded (beside a detector
// that sequences, the runtime reports two that can synchronize under a
// mutex of the scope instance they share, gpu.Sequencer, so the detector
// saw those two in the same order), and each synchronizes with every
// later one that is morally strong with it: each one's scope covers the
// other's thread. Of one thread's earlier fence.sc operations of one
// scope only the latest needs an edge, since program order reaches the
// others from it; the latest morally strong one is among those latest
// per scope.
func (g *graph) fenceSC() {
	latest := make(map[int]*[scope.System + 1]int32) // per thread, per scope: its latest fence.sc, or -1
	for i := range g.tr.Events {
		f := &g.tr.Events[i]
		if f.What != FenceEvent || f.Order != gpu.SeqCst {
			continue
		}
		for t, byScope := range latest {
			if t != f.Thread.Thread {
				g.scEdges(int32(i), byScope)
			}
		}
		g.noteSC(latest, int32(i))
	}
}

// scEdges adds an edge to fence.sc f from each of the fences in earlier
// (one thread's latest per scope) that is morally strong with it.
func (g *graph) scEdges(f int32, earlier *[scope.System + 1]int32) {
	later := &g.tr.Events[f]
	for _, e := range earlier {
		if e < 0 {
			continue
		}
		if ev := &g.tr.Events[e]; covers(ev.Scope, ev, later) && covers(later.Scope, ev, later) {
			g.preds[f] = append(g.preds[f], e)
		}
	}
}

// noteSC records fence.sc f as its thread's latest of its scope.
func (g *graph) noteSC(latest map[int]*[scope.System + 1]int32, f int32) {
	e := &g.tr.Events[f]
	byScope := latest[e.Thread.Thread]
	if byScope == nil {
		byScope = new([classes]int32)
		*byScope = noEvents()
		latest[e.Thread.Thread] = byScope
	}
	byScope[e.Scope] = f
}
