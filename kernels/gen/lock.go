package gen

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Lock is a critical section: acquire lock word l[Lock] by spinning on
// atomicCAS or atomicExch of scope Scope, optionally fence, run Body, and
// release by atomicExch or a release store. Take and Give order the
// acquiring and the releasing read-modify-write as libcu++'s atomic_ref
// would (a lock taken with exchange(1, memory_order_acquire)); their zero
// value, like gpu.Relaxed, is CUDA's relaxed atomicCAS and atomicExch.
type Lock struct {
	Who     Guard       // the threads that take the lock, one at a time
	Lock    int         // the lock word, l[Lock]
	Scope   scope.Scope // the scope of the lock's atomics and fences
	Exch    bool        // acquire with atomicExch rather than atomicCAS
	Fence   bool        // a fence of the lock's scope after acquiring and before releasing
	Release bool        // release with a release store rather than atomicExch
	Take    gpu.Order   // the acquiring read-modify-write's order
	Give    gpu.Order   // the releasing atomicExch's order, unless Release
	Body    []Access    // the critical section, run unguarded by the holder
}

// run takes the lock, runs the body and releases, if t passes the guard.
func (l Lock) run(t *gpu.Thread, m *mem) {
	if !l.Who.has(t.BlockRank(), t.ThreadRank()) {
		return
	}
	w := lockBase + l.Lock
	for m.do(t, Global, w, l.acquireOp(), rmwOrder(l.Take), l.Scope, 1, 0) != 0 {
	}
	l.fence(t)
	for _, a := range l.Body {
		a.do(t, m)
	}
	l.fence(t)
	if l.Release {
		m.do(t, Global, w, Store, gpu.Release, l.Scope, 0, 0)
	} else {
		m.do(t, Global, w, Exch, rmwOrder(l.Give), l.Scope, 0, 0)
	}
}

// rmwOrder reads an unset order, gpu.Weak, as gpu.Relaxed: a
// read-modify-write is never weak.
func rmwOrder(o gpu.Order) gpu.Order {
	if o == gpu.Weak {
		return gpu.Relaxed
	}
	return o
}

// acquireOp is the operation that takes the lock.
func (l Lock) acquireOp() Op {
	if l.Exch {
		return Exch
	}
	return CAS
}

// fence fences at the lock's scope if the lock fences.
func (l Lock) fence(t *gpu.Thread) {
	if l.Fence {
		t.Fence(l.Scope)
	}
}

// String prints the lock statement on one line.
func (l Lock) String() string {
	lw := fmt.Sprintf("l[%d]", l.Lock)
	take := rmwText(rmwOrder(l.Take), l.Scope)
	acquire := fmt.Sprintf("while (atomicCAS.%s(&%s, 0, 1) != 0) {}", take, lw)
	if l.Exch {
		acquire = fmt.Sprintf("while (atomicExch.%s(&%s, 1) != 0) {}", take, lw)
	}
	return guarded(l.Who, fmt.Sprintf("lock: %s { %s }", acquire, strings.Join(l.body(lw), "; ")))
}

// body prints the critical section and the release of lock word lw.
func (l Lock) body(lw string) []string {
	var body []string
	if l.Fence {
		body = append(body, fenceText(l.Scope))
	}
	for _, a := range l.Body {
		body = append(body, a.text())
	}
	if l.Fence {
		body = append(body, fenceText(l.Scope))
	}
	if l.Release {
		return append(body, fmt.Sprintf("release.%v %s = 0", l.Scope, lw))
	}
	return append(body, fmt.Sprintf("atomicExch.%s(&%s, 0)", rmwText(rmwOrder(l.Give), l.Scope), lw))
}
