package oracle

import "github.com/warpguard/warpguard/scope"

// location is one memory element: a memory and a byte offset in it.
type location struct {
	mem    uint64
	offset uint64
}

// synchronizesWith adds an edge for every release pattern whose write a
// later strong read reads, directly or through a release sequence, to the
// acquire pattern of that read. Events are scanned in memory order, keeping
// each location's current release sequence: the last store that is not a
// read-modify-write and the read-modify-writes after it.
//
// A read takes the last write of the sequence, which continues the
// release sequence of every write in it. So the read synchronizes with
// every write of the sequence by another thread whose release pattern
// reaches it: the write itself if it is a release, else the latest fence
// before it in program order whose scope covers both threads; and the
// pattern ends at the read itself if it is an acquire, else at the
// earliest such fence after it. Both depend on the two threads only
// through the narrowest scope holding both, their class, so the scan
// keeps, per location, per writer and class, the latest release pattern
// in the sequence: an earlier one of the same writer is before it in
// program order, and its edge would add no path. An acquire fence not yet
// seen waits in its reader's pending list until the reader's next fence
// that is wide enough. Each event is handled in time linear in the
// threads, not in the sequence or in program order.
func (g *graph) synchronizesWith() {
	s := &swScan{g: g, seqs: make(map[location][]seqWriter), threads: make([]swThread, g.tr.Grid.Threads)}
	for i := range g.tr.Events {
		s.event(int32(i))
	}
}

// classes is the number of scopes indexed by class: Thread to System.
const classes = scope.System + 1

// noEvents returns a per-class table of events with none in any class.
func noEvents() [classes]int32 {
	var t [classes]int32
	for c := range t {
		t[c] = -1
	}
	return t
}

// An swScan is synchronizesWith's state as it scans the events.
type swScan struct {
	g       *graph
	seqs    map[location][]seqWriter // per location: the writers of its current release sequence
	threads []swThread               // per global thread id
}

// A seqWriter is one thread's writes in a location's release sequence:
// its place, and per class the latest start of a release pattern ending
// in one of them, or -1.
type seqWriter struct {
	place scope.Place
	src   [classes]int32
}

// An swThread is a thread's fences so far, per class the latest whose
// scope covers the class (or -1), and its pending acquires: per class,
// per writer thread, the latest release start that a strong read of the
// thread took and whose acquire pattern ends at the thread's next fence
// wide enough for the class.
type swThread struct {
	fence   [classes]int32
	fenced  bool
	pending [classes]map[int]int32
}

// event handles event i: a fence ends pending acquires and starts
// release patterns; a strong read synchronizes with its location's
// release sequence; a store continues or restarts the sequence.
func (s *swScan) event(i int32) {
	e := &s.g.tr.Events[i]
	switch {
	case e.What == FenceEvent:
		s.fence(i, e)
	case e.What != AccessEvent:
	default:
		loc := location{e.Access.Mem.ID, e.Access.Offset}
		if e.Access.Op.Reads() && e.Strong() {
			s.read(i, e, s.seqs[loc])
		}
		if e.Stores() {
			s.seqs[loc] = s.store(i, e, s.seqs[loc])
		}
	}
}

// fence handles fence f of e's thread: the edges of the acquires it ends
// (each pending acquire of a class its scope covers), and f as the latest
// fence of those classes for the thread's later writes.
func (s *swScan) fence(f int32, e *Event) {
	th := &s.threads[e.Thread.Thread]
	if !th.fenced {
		th.fence, th.fenced = noEvents(), true
	}
	for c := scope.Warp; c <= e.Scope; c++ {
		for _, src := range th.pending[c] {
			s.g.preds[f] = append(s.g.preds[f], src)
		}
		clear(th.pending[c])
		th.fence[c] = f
	}
}

// read handles strong read r of e, of a location whose release sequence
// has the writers seq: each writer of another thread, whose writes the
// read's scope and its own cover, synchronizes with the read's acquire.
func (s *swScan) read(r int32, e *Event, seq []seqWriter) {
	for k := range seq {
		w := &seq[k]
		c := scope.Common(w.place, e.Thread)
		if w.place.Thread == e.Thread.Thread || !e.Access.Scope.Includes(c) || w.src[c] < 0 {
			continue
		}
		if e.Access.Order.Acquires() {
			s.g.preds[r] = append(s.g.preds[r], w.src[c])
			continue
		}
		s.pend(e.Thread.Thread, c, w.place.Thread, w.src[c])
	}
}

// pend notes that reader thread t acquires src, of writer thread wt, at
// its next fence wide enough for class c.
func (s *swScan) pend(t int, c scope.Scope, wt int, src int32) {
	th := &s.threads[t]
	if th.pending[c] == nil {
		th.pending[c] = make(map[int]int32)
	}
	if old, ok := th.pending[c][wt]; !ok || src > old {
		th.pending[c][wt] = src
	}
}

// store handles store h of e to a location whose release sequence has
// the writers seq, and returns the sequence after it: a store that is
// not a read-modify-write starts a new one.
func (s *swScan) store(h int32, e *Event, seq []seqWriter) []seqWriter {
	if !e.Access.Op.IsRMW() {
		seq = seq[:0]
	}
	if !e.Strong() {
		return seq // a weak write releases nothing
	}
	k := writerIn(seq, e.Thread)
	if k < 0 {
		seq = append(seq, seqWriter{place: e.Thread, src: noEvents()})
		k = len(seq) - 1
	}
	w := &seq[k]
	for c := scope.Warp; c <= e.Access.Scope && c < classes; c++ {
		w.src[c] = max(w.src[c], s.releaseStart(h, e, c))
	}
	return seq
}

// writerIn returns the index of thread p's entry in seq, or -1.
func writerIn(seq []seqWriter, p scope.Place) int {
	for k := range seq {
		if seq[k].place.Thread == p.Thread {
			return k
		}
	}
	return -1
}

// releaseStart returns where the release pattern ending in strong write
// h of e begins, as seen by a thread of class c: h itself if it is a
// release store or read-modify-write, else the writer's latest fence so
// far whose scope covers c; -1 if there is none.
func (s *swScan) releaseStart(h int32, e *Event, c scope.Scope) int32 {
	if e.Access.Order.Releases() {
		return h
	}
	if th := &s.threads[e.Thread.Thread]; th.fenced {
		return th.fence[c]
	}
	return -1
}
