package oracle

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A graph is the happens-before graph of one trace: one node per event,
// numbered as the events are. Every edge goes from a smaller number to a
// larger, since a thread's events, a barrier's arrivals and departures, and
// a release and the acquire that saw it are all recorded in that order; the
// numbering is therefore a topological order.
type graph struct {
	tr    *Trace
	preds [][]int32 // preds[i]: the nodes with an edge to node i
	last  []int32   // per global thread id: its latest node, or -1
}

// build returns the graph of tr: program order, barrier edges, scoped
// synchronizes-with and the fence.sc order.
func build(tr *Trace) *graph {
	g := program(tr)
	g.synchronizesWith()
	g.fenceSC()
	return g
}

// program returns the graph of tr's program-order and barrier edges.
func program(tr *Trace) *graph {
	n := len(tr.Events)
	g := &graph{tr: tr, preds: make([][]int32, n), last: make([]int32, tr.Grid.Threads)}
	for i := range g.last {
		g.last[i] = -1
	}
	for i := range tr.Events {
		g.step(int32(i))
	}
	return g
}

// step adds event i's program-order or barrier edges.
func (g *graph) step(i int32) {
	e := &g.tr.Events[i]
	if e.What != SyncEvent {
		g.follow(i, e.Thread.Thread)
		return
	}
	if e.Barrier() {
		for _, t := range participants(&g.tr.Grid, e.Sync) {
			g.follow(i, t)
		}
	}
}

// follow makes node i the next node of thread t.
func (g *graph) follow(i int32, t int) {
	if p := g.last[t]; p >= 0 {
		g.preds[i] = append(g.preds[i], p)
	}
	g.last[t] = i
}

// participants returns the global thread ids that sync s names.
func participants(gr *gpu.Grid, s gpu.Sync) []int {
	var ids []int
	switch s.Kind {
	case gpu.SyncGrid:
		for t := range gr.Threads {
			ids = append(ids, t)
		}
	case gpu.SyncThreads:
		ids = ranks(gr, s.Block, 0, gr.BlockSize)
	case gpu.SyncTile:
		ids = ranks(gr, s.Block, s.First, s.Count)
	case gpu.SyncWarp:
		block, w := s.Warp/gr.Warps, s.Warp%gr.Warps
		for lane := range gr.WarpSize {
			if r := w*gr.WarpSize + lane; s.Mask&(1<<lane) != 0 && r < gr.BlockSize {
				ids = append(ids, block*gr.BlockSize+r)
			}
		}
	}
	return ids
}

// ranks returns the global ids of ranks first to first+n-1 of block b.
func ranks(gr *gpu.Grid, b, first, n int) []int {
	ids := make([]int, n)
	for k := range ids {
		ids[k] = b*gr.BlockSize + first + k
	}
	return ids
}

// covers reports whether scope s orders the threads of events a and b.
func covers(s scope.Scope, a, b *Event) bool { return s.Covers(a.Thread, b.Thread) }
