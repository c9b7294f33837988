package iguard

import (
	"fmt"
	"sync/atomic"

	"github.com/warpguard/warpguard/scope"
)

// The fence slots a thread marks: one per scope that orders anything.
// A system fence counts as a device fence, as in iGUARD.
const (
	fenceWarp = iota
	fenceBlock
	fenceDevice
	nFence
)

// fenceSlot returns the slot a fence of scope s marks, or -1 for a
// thread-scope fence, which orders nothing.
func fenceSlot(s scope.Scope) int {
	switch s {
	case scope.Thread:
		return -1
	case scope.Warp:
		return fenceWarp
	case scope.Block:
		return fenceBlock
	}
	return fenceDevice
}

// fence numbers a fence of scope s by th and marks it in last.
func (th *thread) fence(s scope.Scope) {
	if i, n := th.number(s); i >= 0 {
		mark(&th.last, i, n)
	}
}

// number returns the fence slot of scope s and the seq of a fence of th
// in it, or -1 for a thread-scope fence, which orders nothing. A thread
// may make 2^32-1 numbered fences (releases included) in a launch; the
// next one panics, which the runtime turns into the launch's error with
// the thread's coordinates, rather than let the count wrap and every
// earlier access look unfenced.
func (th *thread) number(s scope.Scope) (int, uint32) {
	i := fenceSlot(s)
	if i < 0 {
		return i, 0
	}
	n := th.seq.Add(1)
	if n == 0 {
		panic(fmt.Errorf("race: thread %d made 2^32 fences in launch %q; the detector numbers a thread's fences in 32 bits", th.gid, th.l.g.Name))
	}
	return i, n
}

// mark records fence n, counted in slot i, as the last of slots 0..i.
func mark(last *[nFence]atomic.Uint32, i int, n uint32) {
	for j := 0; j <= i; j++ {
		last[j].Store(n)
	}
}
