package gpu

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// A Schedule orders the choices the runtime makes freely: which block a
// free slot runs next, in which order a block's threads start, and which
// waiting thread resumes next. A correct kernel gives the same results
// under every schedule; a kernel whose results change has an
// order-dependent bug. Combined with LaunchConfig.Deterministic, a schedule and
// seed reproduce one interleaving exactly. Under the Goroutines executor
// only the block and start orders apply: the Go scheduler picks who runs.
type Schedule uint8

// The schedules.
const (
	// ScheduleDefault runs blocks and starts threads in increasing order.
	// Under the Fibers executor a thread that arrives at a barrier or
	// warp collective hands its block to the next thread to start or,
	// once all have started, to the runnable thread queued longest; the
	// threads a round releases while they are so handed over resume in
	// the reverse of their arrival, as the chain of hand-offs comes back
	// down, and other waiting threads resume first in, first out.
	ScheduleDefault Schedule = iota
	// ScheduleReverse runs blocks and starts threads in decreasing order
	// and resumes the most recently woken thread first; a thread that
	// yields while spinning resumes after every thread queued before it,
	// so that it cannot starve the threads it waits for.
	ScheduleReverse
	// ScheduleRandom runs blocks, starts threads and resumes waiting
	// threads in a pseudo-random order drawn from LaunchConfig.Seed. In a
	// Deterministic launch a thread also yields after a fence when the
	// seed's draw says so (half the time), so that other blocks run
	// between a fence and what follows it even in a kernel whose threads
	// never wait: the order of two blocks' fences, on which a fence.sc
	// ordering rests, then varies from seed to seed.
	ScheduleRandom
)

// String returns "default", "reverse" or "random".
func (s Schedule) String() string {
	switch s {
	case ScheduleDefault:
		return "default"
	case ScheduleReverse:
		return "reverse"
	case ScheduleRandom:
		return "random"
	}
	return fmt.Sprintf("schedule(%d)", uint8(s))
}

// A scheduler maps the launch's Schedule to concrete orders.
type scheduler struct {
	kind   Schedule
	seed   uint64
	blocks int
	a, c   int // ScheduleRandom visits block (a*k + c) mod blocks k-th
}

func newScheduler(cfg LaunchConfig, blocks int) scheduler {
	s := scheduler{kind: cfg.Schedule, seed: cfg.Seed, blocks: blocks}
	if s.kind == ScheduleRandom && blocks > 1 {
		r := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
		s.c = r.IntN(blocks)
		for s.a = 1 + r.IntN(blocks-1); gcd(s.a, blocks) != 1; s.a = 1 + r.IntN(blocks-1) {
		}
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// block returns the id of the k-th block to run.
func (s *scheduler) block(k int) int {
	switch s.kind {
	case ScheduleReverse:
		return s.blocks - 1 - k
	case ScheduleRandom:
		if s.blocks > 1 {
			return int((uint64(s.a)*uint64(k) + uint64(s.c)) % uint64(s.blocks))
		}
	}
	return k
}

// rng returns the random source of block id, or nil unless the schedule is
// random.
func (s *scheduler) rng(id int) *rand.Rand {
	if s.kind != ScheduleRandom {
		return nil
	}
	return rand.New(rand.NewPCG(s.seed, uint64(id)))
}

// order fills order with the start order of a block's n threads, or
// returns nil for the default order.
func (s *scheduler) order(order []int, n int, r *rand.Rand) []int {
	if s.kind == ScheduleDefault {
		return nil
	}
	order = order[:0]
	for i := range n {
		order = append(order, i)
	}
	switch s.kind {
	case ScheduleReverse:
		for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	case ScheduleRandom:
		r.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	return order
}

// turns is the token of a Deterministic launch: only the slot holding it
// runs, and it passes the token on, in slot order, each time one of its
// threads waits, yields or ends a run. Every switch between threads is
// then a function of the kernel and the schedule alone.
type turns struct {
	mu   sync.Mutex
	ring []int // slots still running, in order
	ch   []chan struct{}
	stop <-chan struct{}
}

func newTurns(slots int, stop <-chan struct{}) *turns {
	t := &turns{ring: make([]int, slots), ch: make([]chan struct{}, slots), stop: stop}
	for i := range slots {
		t.ring[i], t.ch[i] = i, make(chan struct{}, 1)
	}
	t.ch[0] <- struct{}{}
	return t
}

// hold waits until slot i holds the token, or the launch stops.
func (t *turns) hold(i int) {
	select {
	case <-t.ch[i]:
	case <-t.stop:
	}
}

// pass gives the token to the slot after i and waits for it to come back.
func (t *turns) pass(i int) {
	t.mu.Lock()
	next := t.after(i)
	t.mu.Unlock()
	if next == i {
		return
	}
	select {
	case t.ch[next] <- struct{}{}:
	default: // after a stop the token may be left in a channel
	}
	t.hold(i)
}

// after returns the running slot after i. Preconditions: t.mu held.
func (t *turns) after(i int) int {
	for k, s := range t.ring {
		if s == i {
			return t.ring[(k+1)%len(t.ring)]
		}
	}
	return i
}

// leave takes slot i out of the ring and passes the token on.
func (t *turns) leave(i int) {
	t.mu.Lock()
	next := t.after(i)
	for k, s := range t.ring {
		if s == i {
			t.ring = append(t.ring[:k], t.ring[k+1:]...)
			break
		}
	}
	t.mu.Unlock()
	if next != i {
		select {
		case t.ch[next] <- struct{}{}:
		default: // after a stop the token may be left in a channel
		}
	}
}
