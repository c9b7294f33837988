package oracle

// location is one memory element: a memory and a byte offset in it.
type location struct {
	mem    uint64
	offset uint64
}

// synchronizesWith adds an edge for every release pattern whose write a
// later strong read reads, directly or through a release sequence, to the
// acquire pattern of that read. Events are scanned in memory order, keeping
// each location's modification order: the events that stored there.
func (g *graph) synchronizesWith() {
	mo := make(map[location][]int32)
	for i := range g.tr.Events {
		e := &g.tr.Events[i]
		if e.What != AccessEvent {
			continue
		}
		loc := location{e.Access.Mem.ID, e.Access.Offset}
		if e.Access.Op.Reads() && e.Strong() {
			g.readFrom(int32(i), mo[loc])
		}
		if e.Stores() {
			mo[loc] = append(mo[loc], int32(i))
		}
	}
}

// readFrom adds the edges of strong read r, whose location's modification
// order so far is order: r reads its last write, which belongs to the
// release sequence of every write back to the first that is not a
// read-modify-write.
func (g *graph) readFrom(r int32, order []int32) {
	for k := len(order) - 1; k >= 0; k-- {
		h := order[k]
		g.pair(h, r)
		if !g.tr.Events[h].Access.Op.IsRMW() {
			return
		}
	}
}

// pair adds the edge from the release pattern ending in write h to the
// acquire pattern starting with read r, if both exist for these two
// threads.
func (g *graph) pair(h, r int32) {
	w, rd := &g.tr.Events[h], &g.tr.Events[r]
	if w.Thread.Thread == rd.Thread.Thread || !w.Strong() ||
		!covers(w.Access.Scope, w, rd) || !covers(rd.Access.Scope, w, rd) {
		return
	}
	src, dst := g.release(h, rd), g.acquire(r, w)
	if src >= 0 && dst >= 0 {
		g.preds[dst] = append(g.preds[dst], src)
	}
}

// release returns where the release pattern ending in write h, as seen by
// the thread of other, begins: h itself if it is a release store or
// read-modify-write (release, acq_rel or seq_cst order) whose scope
// covers both threads, else the latest such fence before h in
// program order; -1 if there is none.
func (g *graph) release(h int32, other *Event) int32 {
	w := &g.tr.Events[h]
	if w.Access.Order.Releases() && covers(w.Access.Scope, w, other) {
		return h
	}
	po := g.po[w.Thread.Thread]
	for k := g.pos[h] - 1; k >= 0; k-- {
		f := &g.tr.Events[po[k]]
		if f.What == FenceEvent && covers(f.Scope, w, other) {
			return po[k]
		}
	}
	return -1
}

// acquire returns where the acquire pattern starting with read r, as seen
// by the thread of other, ends: r itself if it is an acquire load or
// read-modify-write (acquire, acq_rel or seq_cst order) whose scope
// covers both threads, else the earliest such fence after r in
// program order; -1 if there is none.
func (g *graph) acquire(r int32, other *Event) int32 {
	rd := &g.tr.Events[r]
	if rd.Access.Order.Acquires() && covers(rd.Access.Scope, rd, other) {
		return r
	}
	po := g.po[rd.Thread.Thread]
	for k := g.pos[r] + 1; int(k) < len(po); k++ {
		f := &g.tr.Events[po[k]]
		if f.What == FenceEvent && covers(f.Scope, rd, other) {
			return po[k]
		}
	}
	return -1
}
