package gpu

import (
	"sync"
	"unsafe"
)

// A Sequencer is an [Observer] that sees the accesses to each memory
// element in the order they take effect. A plain Observer learns of an
// access after the runtime performed it, so on many cores a thread may
// read a value before the observer has recorded the write that stored it,
// and an observer that wants to know which write a read read from can
// only guess from values. A Sequencer removes the guess.
//
// When a launch's observer (LaunchConfig.Observer, or the device's) implements
// Sequencer, the runtime performs every sequenced access of element i of
// memory m while holding the mutex Sequence(m, i) returns, and calls
// Access before it unlocks the mutex. The sequenced accesses are every
// store and read-modify-write, weak or strong, and every strong load
// (volatile, atomic, acquire); weak loads are not sequenced, since no
// access reads from a load. So for each element, the order in which
// Access sees its sequenced accesses is the order in which they took
// effect in memory, and a strong load is reported with the value of the
// last store or read-modify-write reported before it (among the
// launch's threads; host copies and other launches do not take the
// mutex). In the terminology of [the Go memory model], each sequenced
// access's Access call synchronizes before the next sequenced access of
// the same element. [Access.Sequenced] tells the observer that the
// runtime holds the mutex, so that it may guard its own state of the
// element with it rather than lock a second mutex.
//
// A release store is still reported before its value reaches memory, and
// every other access after, both under the mutex. Access must not wait
// for another thread of the launch while it holds the mutex, and the
// mutex must be used for nothing but this: the runtime locks it, and no
// other lock a thread can hold is taken inside it.
//
// Fences of order SeqCst (fence.sc) are reported concurrently, and a
// Sequencer orders them itself, as it applies them (PTX's Fence-SC order
// is whatever total order they are applied in). With two Sequencers, the
// runtime reports each fence.sc while holding a mutex of each scope
// instance its scope spans that holds the thread (its warp's, its block's
// for block scope or wider, its device's for device or system scope), so
// both see the fence.sc operations that share an instance in the same
// order, and each such report synchronizes before the next. Two fence.sc
// that can synchronize (each one's scope covers the other's thread)
// always share one: their common instance. Block fences of two blocks
// share none and are reported concurrently.
//
// With two observers (the device's and the launch's) that both sequence,
// the runtime locks both mutexes, the lower address first.
//
// [the Go memory model]: https://go.dev/ref/mem
type Sequencer interface {
	Observer
	// Sequences reports whether the observer sequences accesses: an
	// observer that does so only in some configurations says which. The
	// runtime asks once per launch, before LaunchStart.
	Sequences() bool
	// Sequence returns the mutex that orders the sequenced accesses of
	// element index of m. It must return the same mutex for an element
	// throughout a launch; elements may share one.
	Sequence(m *Memory, index int) *sync.Mutex
}

// sequencers are the Sequencers among a launch's observers: the first,
// and the second when both of a pair sequence.
type sequencers struct{ a, b Sequencer }

// sequencersOf returns the Sequencers among the observers o stands for,
// or nil if none sequences.
func sequencersOf(o Observer) *sequencers {
	var s sequencers
	if p, ok := o.(observerPair); ok {
		s.a, s.b = sequencerOf(p[0]), sequencerOf(p[1])
	} else {
		s.a = sequencerOf(o)
	}
	if s.a == nil {
		s.a, s.b = s.b, nil
	}
	if s.a == nil {
		return nil
	}
	return &s
}

// sequencerOf returns o as a Sequencer if it sequences, else nil.
func sequencerOf(o Observer) Sequencer {
	if s, ok := o.(Sequencer); ok && s.Sequences() {
		return s
	}
	return nil
}

// lock locks the mutexes that sequence element i of m and returns them;
// y is nil when one mutex sequences it. Two are locked lower address
// first, so launches whose observers are the same two Sequencers in
// either order cannot deadlock.
func (s *sequencers) lock(m *Memory, i int) (x, y *sync.Mutex) {
	x = s.a.Sequence(m, i)
	if s.b != nil {
		if y = s.b.Sequence(m, i); y == x {
			y = nil
		} else if uintptr(unsafe.Pointer(y)) < uintptr(unsafe.Pointer(x)) {
			x, y = y, x
		}
	}
	x.Lock()
	if y != nil {
		y.Lock()
	}
	return x, y
}

// unlock unlocks what lock locked.
func unlock(x, y *sync.Mutex) {
	if y != nil {
		y.Unlock()
	}
	x.Unlock()
}

// SequencedBy reports whether o is one of the sequencing observers of
// t's launch: those whose Sequence mutex the runtime holds while it
// reports a sequenced access (see [Access.Sequenced]).
func (t *Thread) SequencedBy(o Sequencer) bool {
	q := t.seq
	return q != nil && (q.a == o || q.b != nil && q.b == o)
}

// sequenced reports whether an access of op with order o is sequenced:
// any but a weak load.
func sequenced(op Op, o Order) bool { return op != OpLoad || o != Weak }
