package gpu

import (
	"slices"
	"sync"
)

// An idlePool keeps a device's idle goroutines of one kind (fibers, or the
// Goroutines executor's workers) between launches, at most max of them,
// in shards by slot index: a slot takes back what the slot of its index
// gave back, and another shard's only when its own is empty (see
// fiberPool for why). It only keeps them; ending one is its caller's work.
// Every put synchronizes before the take that returns what it put.
type idlePool[T any] struct {
	mu     sync.Mutex
	shards [][]T // by slot index
	n      int   // idle entries in shards
	max    int
	closed bool
}

// take removes and returns an idle entry of shard i, or of another shard
// if i has none; ok is false if the pool is empty.
func (p *idlePool[T]) take(i int) (x T, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		return x, false
	}
	if i >= len(p.shards) || len(p.shards[i]) == 0 {
		i = slices.IndexFunc(p.shards, func(xs []T) bool { return len(xs) > 0 })
	}
	xs := p.shards[i]
	x = xs[len(xs)-1]
	xs[len(xs)-1] = *new(T)
	p.shards[i], p.n = xs[:len(xs)-1], p.n-1
	return x, true
}

// put keeps the first of xs in shard i, as many as the pool has room for,
// none once it is closed, and returns how many it kept; the caller ends
// the rest.
func (p *idlePool[T]) put(i int, xs []T) (kept int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0
	}
	kept = min(len(xs), p.max-p.n)
	for len(p.shards) <= i {
		p.shards = append(p.shards, nil)
	}
	p.shards[i], p.n = append(p.shards[i], xs[:kept]...), p.n+kept
	return kept
}

// drain closes the pool, so that later puts keep nothing, and returns
// every idle entry for the caller to end. It is idempotent.
func (p *idlePool[T]) drain() []T {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := slices.Concat(p.shards...)
	p.shards, p.n, p.closed = nil, 0, true
	return all
}

// isClosed reports whether drain was called.
func (p *idlePool[T]) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// entries returns the idle entries, shard by shard, for tests.
func (p *idlePool[T]) entries() []T {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Concat(p.shards...)
}
