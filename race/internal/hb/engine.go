package hb

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// An Engine is the exact mode's checker (race.Options.Precise): one
// happens-before over every launch it observes. It has no lock that every
// event takes. Each granule's accesses are checked and recorded under
// its shadow page's lock (see pageLock), so they are applied in one total
// order, and a check that finds an earlier access ordered before it found
// it through a chain of the runtime's own synchronization (a barrier, or
// a sequenced write and the strong read that read it), which the page
// lock's unlock and lock extend: each page's check synchronizes before
// the next check of the same page. A thread's own state is touched by its
// own calls and by barriers it is held in (gpu.Observer's contract for
// Sync), so it needs no lock, but for what evidence reads of other
// threads (see pthread.mu).
//
// mu guards launches, the cohort, each launch's blocks and spare thread
// states, and the spares of ended launches' blocks: the lifecycle calls
// and the rare lookups that miss a cache.
// Lock order: a page lock (a stripe, which the runtime takes for a
// sequenced access, see Sequence), then mu, then a thread's mu; a
// shadow's mu is taken last, under either of the first two (making a
// page, or freeing, keeping or reusing a shadow under mu), and sc's mu
// alone.
//
// Launches that overlap share a cohort: their threads, blocks and warps
// are numbered apart in it, so a thread's place tells launches apart, and
// they check against one shadow of global memory per device. A launch
// that starts while none runs starts a new cohort knowing everything
// before it (host order: each earlier launch returned before it started),
// and the shadow starts empty. A launch that starts while others run
// knows, of the cohort's launches, those that had ended (see LaunchStart).
type Engine struct {
	shift    uint          // log2 of the granule size
	full     bool          // every touched granule gets its full state at once (no first records)
	flat     bool          // joins keep no lineages: every covers check walks (see lineage)
	sites    *shared.Sites // finds the site of a report's access when it came without one
	sink     *shared.Sink  // keeps the reports
	self     gpu.Sequencer // the observer whose Sequence the runtime calls for this engine (see pthread.sequenced)
	mu       sync.Mutex
	launches map[*gpu.Grid]*plaunch  // the running ones
	last     atomic.Pointer[plaunch] // the launch that started last, if it runs
	coh      *cohort
	spares   []spareShadow // shadows of ended cohorts, for the next (see reuse.go)
	blocks   []spareBatch  // ended launches' blocks' states (see keepBlocks)
	totals   totals
	// roomThreads is the most threads a cohort numbers (cohortThreads),
	// and roomWait how long a launch waits for room (cohortWait); tests
	// lower both.
	roomThreads int64
	roomWait    time.Duration
	// stripes guard the shadow's pages (see pageLock) and sequence each
	// element's strong reads and writes with their checks (see Sequence).
	stripes [stripeCount]stripe
}

// stripeCount is how many page locks an engine has: enough that threads
// on different pages rarely share one.
const stripeCount = 1024

// A stripe is one page lock, alone on its cache line.
type stripe struct {
	mu sync.Mutex
	_  [cacheLine - 8]byte
}

// New returns an engine checking granules of 1<<shift bytes, which finds
// missing sites with sites and keeps its reports in sink. With full,
// every touched granule gets its full state at its first access, instead
// of a first record (see cell); with flat, vector clocks keep no
// lineages, so that every covers check walks (see lineage). Both are
// ablations for benchmarks, with the same verdicts. self is the observer
// that owns the engine and answers the runtime's Sequence calls with the
// engine's (see Sequence).
func New(shift uint, full, flat bool, sites *shared.Sites, sink *shared.Sink, self gpu.Sequencer) *Engine {
	return &Engine{shift: shift, full: full, flat: flat, sites: sites, sink: sink, self: self, launches: map[*gpu.Grid]*plaunch{}, coh: newCohort(),
		roomThreads: cohortThreads, roomWait: cohortWait}
}

// Sequence returns the mutex under which the runtime performs and reports
// the stores, read-modify-writes and strong loads of element i of m (see
// gpu.Sequencer): the page lock of the element's granules (see pageLock),
// which the engine then need not take again. Because the check of each
// such access happens before the mutex is unlocked, the order in which
// the engine checks an element's writes and strong reads is the order in
// which they took effect, on every executor: a strong read acquires from
// the write whose value it returned, with no waiting and no inference
// from values. An element's granules lie in one page: elements are
// aligned to their size, and a page spans more bytes than any element.
func (p *Engine) Sequence(m *gpu.Memory, i int) *sync.Mutex {
	first, _ := p.granulesAt(m, uint64(i)*uint64(m.ElemSize), m.ElemSize)
	return p.pageLock(m, first>>pageBits)
}

// pageLock returns the mutex that guards page k of the shadow of m's
// space: a stripe of the engine's, by device and page for global memory,
// and one per block for shared memory, whose views of any element type
// (dynamic shared memory) need no address to find it. Pages that share a
// stripe are checked one at a time.
func (p *Engine) pageLock(m *gpu.Memory, k uint64) *sync.Mutex {
	if m.Space == gpu.SharedSpace {
		k = ^uint64(m.Block)
	}
	return &p.stripes[mix(k^m.DeviceID*0x9e3779b97f4a7c15)%stripeCount].mu
}

// mix scrambles x's bits (splitmix64's finalizer), so that neighbouring
// pages fall on different stripes.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// thread returns t's state, or nil for a launch the mode does not know.
// After a thread's first call its state is t's observer state, which only
// t's own calls read; a first call finds its block in the launch's cache
// of resident blocks, and only on a miss takes mu.
func (p *Engine) thread(t *gpu.Thread) *pthread {
	if th, ok := t.ObserverState().(*pthread); ok && th.l.p == p {
		return th
	}
	blk := p.cached(t)
	if blk == nil {
		blk = p.resident(t)
	}
	if blk == nil {
		return nil
	}
	th := &blk.threads[t.ThreadRank()]
	if t.ObserverState() == nil {
		t.SetObserverState(th)
	}
	return th
}

// cached returns t's block from its launch's cache, or nil.
func (p *Engine) cached(t *gpu.Thread) *pblock {
	l := p.last.Load()
	if l == nil || l.g != t.Grid() {
		return nil
	}
	return l.cached(t.BlockRank())
}

// resident returns t's block, nil if its launch or block is not running.
func (p *Engine) resident(t *gpu.Thread) *pblock {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.launches[t.Grid()]; l != nil {
		return l.lookup(t.BlockRank())
	}
	return nil
}

// Fence applies a fence of scope s and order o by t: PTX's fence.acq_rel
// (o is gpu.AcqRel), or fence.sc (gpu.SeqCst), which is a fence.acq_rel
// that also synchronizes with the morally strong fence.sc operations
// before it in the engine's fence.sc order (see scOrder). It first
// acquires what the thread's earlier strong reads found released within
// s, then keeps what the thread knows as its release for strong writes
// that follow it.
func (p *Engine) Fence(t *gpu.Thread, s scope.Scope, o gpu.Order) {
	th := p.thread(t)
	switch {
	case th == nil:
	case o == gpu.SeqCst:
		th.fenceSC(s)
	default:
		th.fence(s)
	}
}
