package iguard

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// The central checker (Config.Central) is the design iGUARD set itself
// against: Barracuda logs accesses on the GPU and a host thread checks
// them. Here every observer event of a launch, in the order the threads
// made them, goes through one buffered channel to one goroutine, which
// runs exactly the checks the inline detector runs, on the same metadata
// and synchronization state (it alone touches them, so it locks nothing).
// The channel's order respects every happens-before edge between threads
// that the runtime reports before it happens: a thread sends its fence
// before the store that publishes it, and the reader sends its next
// access after the load that saw the store. The thread numbers each fence
// as it makes it (thread.seq) and the checker marks it when it meets it,
// so a check sees exactly the fences sent before it, as the inline
// detector sees those made before it. A release's fence is marked by the
// accessing thread as it reports the release, apart (thread.rel), and
// each access it sends carries the thread's seq at the access; the
// runtime reports a release before its store, so the channel would order
// it too, and marking it early only makes it known sooner. The cost: a
// check waiting in the channel may see a release its writer made after
// the racing access. The accessing thread also captures its call site, as
// Barracuda logs a PC.
type central struct {
	ch   chan event
	done chan struct{}
}

// centralBuffer is the channel's capacity: enough that threads rarely
// wait for the checker on a burst.
const centralBuffer = 512

// An event is one observer event shipped to the checker.
type event struct {
	kind  uint8
	th    *thread
	l     *launch // evBlockEnd
	block int     // evBlockEnd
	a     gpu.Access
	scope scope.Scope
	sync  gpu.Sync
	site  gpu.Site
	path  *shared.SiteSlot
	seq   uint32 // evAccess: the thread's fence seq at the access; evFence: the fence's
}

const (
	evAccess = iota
	evFence
	evSync
	evBlockEnd
)

// startCentral starts the checker of one launch.
func startCentral(d *Engine) *central {
	c := &central{ch: make(chan event, centralBuffer), done: make(chan struct{})}
	go c.run(d)
	return c
}

func (c *central) send(e event) { c.ch <- e }

// stop waits for the checker to drain the events and exit.
func (c *central) stop() {
	close(c.ch)
	<-c.done
}

// run checks events until the channel closes.
func (c *central) run(d *Engine) {
	defer close(c.done)
	for e := range c.ch {
		switch e.kind {
		case evAccess:
			if !d.sink.Halted() {
				d.access(e.th, nil, &e.a, e.site, e.path, &e.seq)
			}
		case evFence:
			if i := fenceSlot(e.scope); i >= 0 {
				mark(&e.th.last, i, e.seq)
			}
			e.th.fenceLocks(e.scope)
		case evSync:
			e.th.sync(e.sync)
		case evBlockEnd:
			d.endBlock(e.l, e.block)
		}
	}
}
