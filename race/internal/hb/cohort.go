package hb

import (
	"fmt"
	"math"
	"sort"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A cohort is the launches checked against each other: a run of
// overlapping launches, from one that started while none ran. all and
// global are published copy-on-write under the engine's mu and read with
// no lock: a store synchronizes before the loads that return it. The
// other fields are guarded by the engine's mu.
type cohort struct {
	all    atomic.Pointer[[]*plaunch]  // by first thread number, ended ones included; nil for none
	global atomic.Pointer[[]devShadow] // the shadow of global memory, by device; nil for none
	// ro holds the read-only views the cohort's launches read through,
	// published as all is (see readonly.go); every write reads it.
	ro atomic.Pointer[[]roView]
	// first and firstDev are the lists of the first launch and device
	// shadow, over oneLaunch and oneDev, which all and global point to
	// until a second one is added: a cohort of one launch on one device
	// allocates neither list.
	first     []*plaunch
	firstDev  []devShadow
	oneLaunch [1]*plaunch
	oneDev    [1]devShadow
	running   int
	waiting   int           // launches that do not fit, waiting for the cohort to end (see awaitRoom)
	wake      chan struct{} // closed at the next signal, if a launch waits (see signal)
	hosts     int           // host accesses checking against the cohort now (see HostAccess)
	threads   int32         // numbers handed out: threads, warps, blocks
	warps     int32
	blocks    int32
	sc        scOrder // the cohort's fence.sc order and what each fence.sc published
}

// A devShadow is the shadow of one device's global memory.
type devShadow struct {
	dev uint64
	sh  *shadow
}

// cohortThreads bounds the threads of one cohort: epochs name a
// thread by a signed 32-bit number, and read sets key two classes of
// access per thread in one (see setKey).
const cohortThreads = 1 << 30

// newCohort returns an empty cohort.
func newCohort() *cohort { return &cohort{} }

// launches returns the cohort's launches, by first thread number.
func (ss *cohort) launches() []*plaunch {
	if all := ss.all.Load(); all != nil {
		return *all
	}
	return nil
}

// addLaunch publishes l as the cohort's last launch, in a new list (the
// one readers hold stays as it was). Preconditions: the engine's mu held.
func (ss *cohort) addLaunch(l *plaunch) {
	old := ss.launches()
	if old == nil {
		ss.oneLaunch[0] = l
		ss.first = ss.oneLaunch[:]
		ss.all.Store(&ss.first)
		return
	}
	all := append(old[:len(old):len(old)], l)
	ss.all.Store(&all)
}

// shadows returns the cohort's shadows of global memory, by device.
func (ss *cohort) shadows() []devShadow {
	if devs := ss.global.Load(); devs != nil {
		return *devs
	}
	return nil
}

// addShadow publishes sh as the shadow of device dev's global memory, in
// a new list, as addLaunch does (LaunchEnd empties the list when the
// cohort's last launch ends). Preconditions: the engine's mu held.
func (ss *cohort) addShadow(dev uint64, sh *shadow) {
	old := ss.shadows()
	if old == nil && ss.firstDev == nil { // oneDev is written once: a reader may hold it
		ss.oneDev[0] = devShadow{dev, sh}
		ss.firstDev = ss.oneDev[:]
		ss.global.Store(&ss.firstDev)
		return
	}
	devs := append(old[:len(old):len(old)], devShadow{dev, sh})
	ss.global.Store(&devs)
}

// A plaunch is one launch under the precise mode: its resident blocks'
// threads, its numbers in the cohort and what it knows at its start.
// The stores to cache, overflow, spare and ended are made under the
// engine's mu; the rest is set before LaunchStart returns and never
// changes.
type plaunch struct {
	p     *Engine
	ss    *cohort
	g     *gpu.Grid
	spare []blockStates // the thread states of ended blocks, for the next
	box   spareBox      // the box of the batch spare started as, if it took one whole (see keepBlocks)
	// cache holds resident blocks by index modulo its size, so that
	// threads' first calls find theirs with no lock; a block whose slot
	// another holds is in overflow, which is nil until one is. A launch
	// of at most blockCache blocks has a slot for each.
	cache    []atomic.Pointer[pblock]
	overflow map[int]*pblock
	// tid0, warp0 and blk0 are the cohort's numbers of the launch's first
	// thread, warp and block.
	tid0, warp0, blk0 int32
	// base is what its threads know at their start: every block of the
	// cohort's launches that had ended (host order), and what their
	// threads knew (see endedBlocks).
	base *vclock
	// knew is what the threads of its ended blocks knew, joined at each
	// block's end while another launch of the cohort ran (see
	// noteKnown); nil if none did. Guarded by the engine's mu.
	knew  *vclock
	ended bool
	host  string // for a host copy's one-thread launch, the host function (see HostAccess)
	dev   uint64 // the device's number: a device-scope operation covers its threads only
	// glob is the cohort's shadow of the launch's device's global memory,
	// once a thread has found it (see shadowOf): it does not change while
	// the cohort runs, so each later access loads one pointer.
	glob atomic.Pointer[shadow]
}

// threads returns thread states for a block: those an ended block
// left, of this launch or of the batch an earlier one kept (see
// takeBlocks), the last first, or new ones, so that a launch allocates
// them for its resident blocks only, and a launch repeated for none. An
// ended block of another size gives its shadow of shared memory only.
// BlockStart overwrites each thread's hot part; a thread empties its
// cold slot when it takes it. Preconditions: the engine's mu held.
func (l *plaunch) threads() blockStates {
	n := len(l.spare)
	if n == 0 {
		return blockStates{threads: make([]pthread, l.g.BlockSize)}
	}
	st := l.spare[n-1]
	l.spare = l.spare[:n-1]
	if len(st.threads) != l.g.BlockSize {
		return blockStates{threads: make([]pthread, l.g.BlockSize), shared: st.shared}
	}
	return st
}

// blockStates are the states of one block's threads by rank: each one's
// hot part, and the cold states, made when the first of the threads
// needs one (see pthread.coldState), or nil.
type blockStates struct {
	threads []pthread
	colds   *[]pcold
	shared  *shadow // an ended block's shared memory's shadow, to serve again, or nil
}

// A pblock holds the threads of one resident block, by rank, and the
// shadow of its shared memory, which dies with it. Both are set before
// the block's threads run and never change. colds holds the threads'
// cold states once one of them needs one; it is set once, by whichever
// thread gets there first, and a set that stores it synchronizes before
// a load that returns it.
type pblock struct {
	id      int // the launch's index of the block
	threads []pthread
	colds   atomic.Pointer[[]pcold]
	shared  *shadow
	// foreign says a thread of another block looked the block's shared
	// memory up (see plaunch.foreignShared), so that the shadow is not
	// handed to the next block when this one ends: that thread may still
	// be checking in it, under this block's page lock. Under the engine's
	// mu.
	foreign bool
}

// coldSlots returns the block's cold states, making them for all its
// threads if none has needed one yet.
func (blk *pblock) coldSlots() []pcold {
	if cs := blk.colds.Load(); cs != nil {
		return *cs
	}
	fresh := make([]pcold, len(blk.threads))
	if blk.colds.CompareAndSwap(nil, &fresh) {
		return fresh
	}
	return *blk.colds.Load()
}

// states returns the block's thread states, to keep for the next block.
func (blk *pblock) states() blockStates {
	return blockStates{threads: blk.threads, colds: blk.colds.Load()}
}

// blockCache is the most resident blocks a launch's cache holds (fewer
// for a launch of fewer blocks): more than run at once, so that blocks
// rarely share a slot (see addBlock).
const blockCache = 1024

// slot returns block b's slot in the cache; a number that is no block's
// (a grid barrier's block, -1) has one too, which never holds it.
func (l *plaunch) slot(b int) *atomic.Pointer[pblock] {
	return &l.cache[uint(b)%uint(len(l.cache))]
}

// cached returns resident block b if the cache holds it, else nil. A
// block stored there by BlockStart synchronizes before the load that
// finds it.
func (l *plaunch) cached(b int) *pblock {
	if blk := l.slot(b).Load(); blk != nil && blk.id == b {
		return blk
	}
	return nil
}

// LaunchStart starts launch g in the current cohort, or in a new one if
// no launch runs. Its threads know every block of the cohort's launches
// that ended before it started, and nothing of those that run. A launch
// that would number more than cohortThreads threads in the running cohort
// waits for its launches to end and starts a new one (see cohort_room.go);
// one that waits in vain, or that has more threads than a cohort numbers,
// fails with a panic, which the runtime returns as the launch's error.
func (p *Engine) LaunchStart(g *gpu.Grid) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.awaitRoom(g)
	if p.coh.running == 0 {
		p.coh = newCohort()
	}
	ss := p.coh
	if int64(ss.threads)+int64(g.Threads) > p.roomThreads {
		panic(fmt.Errorf("race: launch %q has %d threads: the exact family numbers the threads of overlapping launches in 31 bits, two keys each, at most %d in all",
			g.Name, g.Threads, p.roomThreads))
	}
	l := &plaunch{p: p, ss: ss, g: g, cache: make([]atomic.Pointer[pblock], max(1, min(g.Blocks, blockCache))),
		tid0: ss.threads, warp0: ss.warps, blk0: ss.blocks, base: ss.endedBlocks(), dev: g.Device.ID()}
	l.spare, l.box = p.takeBlocks(g.Blocks)
	ss.threads += int32(g.Threads)
	ss.warps += int32(g.Blocks * g.Warps)
	ss.blocks += int32(g.Blocks)
	ss.addLaunch(l)
	ss.running++
	p.launches[g] = l
	p.last.Store(l)
}

// endedBlocks returns a vclock that knows every block of the cohort's
// launches that have ended, and what their threads knew, nil if none has
// ended. Host order is transitive: a launch that starts after another
// ended follows every event that one's threads followed, as events of a
// launch still running (see noteKnown). Preconditions: the engine's mu
// held.
func (ss *cohort) endedBlocks() *vclock {
	var bs []bgen
	ins := []*vclock{nil}
	for _, l := range ss.launches() {
		if !l.ended {
			continue
		}
		for b := range int32(l.g.Blocks) {
			bs = append(bs, bgen{blk: l.blk0 + b, k: math.MaxUint32})
		}
		if l.knew != nil {
			ins = append(ins, l.knew)
		}
	}
	if bs == nil {
		return nil
	}
	ins[0] = &vclock{b: bs}
	return joinAll(ins, nil, nil)
}

// noteKnown joins what the threads of blk, a block of l ending, knew into
// l.knew, when another launch of l's cohort runs: the block's threads
// may have learned of that launch's events, which no block generation of
// an ended launch stands for. With no other launch running, what they
// knew is of launches that will have ended, or of l itself, before any
// launch that follows l starts. Preconditions: the engine's mu held.
func (l *plaunch) noteKnown(blk *pblock) {
	if l.ss.running < 2 {
		return
	}
	ins := []*vclock{l.knew}
	for i := range blk.threads {
		ins = appendNew(ins, blk.threads[i].know)
	}
	l.knew = joinAll(ins, nil, nil)
}

// LaunchEnd ends launch g: its threads are gone, and what other threads
// learned of them lives on in their vclocks and in the cohort's shadow,
// which goes with the cohort's last running launch.
func (p *Engine) LaunchEnd(g *gpu.Grid) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.launches[g]; l != nil {
		l.ended = true
		p.coh.running--
		delete(p.launches, g)
		p.last.CompareAndSwap(l, nil)
		p.keepBlocks(l)
	}
	if p.coh.running == 0 { // the next launch starts a new cohort: its shadow goes
		p.coh.signal()
		for _, d := range p.coh.shadows() {
			p.free(d.sh)
			if p.coh.hosts == 0 { // a host access still running may record in it
				p.keepSpare(d.dev, d.sh)
			}
		}
		p.coh.global.Store(nil)
	}
}

// BlockStart makes the block's threads, each at clock 1 knowing what its
// launch knew at its start, and the shadow of its shared memory. The
// threads are written with no lock held, so that blocks starting on
// other goroutines wait only for the take of their states and the
// publication; the block's threads run after it returns.
func (p *Engine) BlockStart(g *gpu.Grid, b int) {
	l, st := p.blockThreads(g)
	if l == nil {
		return
	}
	blk := &pblock{id: b, threads: st.threads, shared: p.sharedShadow(st.shared)}
	blk.colds.Store(st.colds)
	for r := range blk.threads {
		l.start(&blk.threads[r], blk, int32(r))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l.addBlock(blk)
}

// addBlock makes blk resident: in its cache slot if that is free, else
// in overflow. Preconditions: the engine's mu held.
func (l *plaunch) addBlock(blk *pblock) {
	if slot := l.slot(blk.id); slot.Load() == nil {
		slot.Store(blk)
		return
	}
	if l.overflow == nil {
		l.overflow = map[int]*pblock{}
	}
	l.overflow[blk.id] = blk
}

// lookup returns resident block b, nil if it is not. Preconditions: the
// engine's mu held.
func (l *plaunch) lookup(b int) *pblock {
	if blk := l.cached(b); blk != nil {
		return blk
	}
	return l.overflow[b]
}

// dropBlock makes block b resident no more and returns it, nil if it was
// not. Preconditions: the engine's mu held.
func (l *plaunch) dropBlock(b int) *pblock {
	if blk := l.cached(b); blk != nil {
		l.slot(b).Store(nil)
		return blk
	}
	blk := l.overflow[b]
	delete(l.overflow, b)
	return blk
}

// blockThreads returns launch g and thread states for one of its blocks,
// or nil if the engine does not know g.
func (p *Engine) blockThreads(g *gpu.Grid) (*plaunch, blockStates) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.launches[g]
	if l == nil {
		return nil, blockStates{}
	}
	return l, l.threads()
}

// BlockEnd forgets the block's threads and its shared memory's shadow:
// what other threads learned of them lives on in their vclocks and in the
// shadow of global memory. Its threads' counters are summed, and their
// states kept for the next block, after it takes the block out of the
// launch, with no lock held.
func (p *Engine) BlockEnd(g *gpu.Grid, b int) {
	l, blk := p.endBlock(g, b)
	if blk == nil {
		return
	}
	var n counters // summed first: one atomic add per counter and block
	for i := range blk.threads {
		n.sum(&blk.threads[i].n)
	}
	p.totals.add(n)
	p.free(blk.shared)
	p.mu.Lock()
	defer p.mu.Unlock()
	l.noteKnown(blk)
	st := blk.states()
	if !blk.foreign {
		st.shared = blk.shared
	}
	l.spare = append(l.spare, st)
}

// sharedShadow returns the shadow of a starting block's shared memory:
// sh, an ended block's of the launch, in a new generation and counted
// again (its pages are emptied at their first visit, their full states
// kept for reuse: see recycle.go), or a new one if sh is nil.
func (p *Engine) sharedShadow(sh *shadow) *shadow {
	if sh == nil {
		return p.newShadow()
	}
	sh.renew(&p.totals)
	return sh
}

// endBlock takes resident block b out of launch g and returns both, or
// nils if either is unknown.
func (p *Engine) endBlock(g *gpu.Grid, b int) (*plaunch, *pblock) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.launches[g]
	if l == nil {
		return nil, nil
	}
	return l, l.dropBlock(b)
}

// block returns the launch's resident block b, nil if it is not.
func (l *plaunch) block(b int) *pblock {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	return l.lookup(b)
}

// foreignShared returns the launch's resident block b, nil if it is not,
// for a thread of another block that accesses its shared memory, and
// marks it foreign.
func (l *plaunch) foreignShared(b int) *pblock {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	blk := l.lookup(b)
	if blk != nil {
		blk.foreign = true
	}
	return blk
}

// place returns the coordinates of the launch's thread tid, a cohort
// number, for scope checks: in cohort numbers, so that a block or warp
// of one launch is never another's, with the launch's device, so that
// device scope does not cover two devices.
func (l *plaunch) place(tid int32) scope.Place {
	var pl scope.Place
	l.setPlace(&pl, tid)
	return pl
}

// setPlace sets *pl to the place of thread tid, a thread of l, field by
// field: a Place made elsewhere and copied in would be read back with
// loads wider than the stores that made it, which wait for them to reach
// the cache.
func (l *plaunch) setPlace(pl *scope.Place, tid int32) {
	gid := int(tid - l.tid0)
	b, r := gid/l.g.BlockSize, gid%l.g.BlockSize
	pl.Device, pl.Launch = l.dev, uint64(l.blk0)+1
	pl.Thread, pl.Warp, pl.Block = int(tid), int(l.warp0)+b*l.g.Warps+r/l.g.WarpSize, int(l.blk0)+b
}

// start makes *th the thread of rank r in block blk at clock 1, knowing
// what its launch knew at its start, with no cold state. It writes *th in
// place, field by field (see setPlace), where a pthread built and then
// copied in costs more than the rest of a block's start.
func (l *plaunch) start(th *pthread, blk *pblock, r int32) {
	tid := l.tid0 + int32(blk.id*l.g.BlockSize) + r
	*th = pthread{}
	th.l, th.blk, th.tid, th.rank, th.c, th.know, th.n.flat = l, blk, tid, r, 1, l.base, l.p.flat
	l.setPlace(&th.place, tid)
}

// launchOf returns the cohort's launch of thread tid.
func (ss *cohort) launchOf(tid int32) *plaunch {
	all := ss.launches()
	i := sort.Search(len(all), func(i int) bool { return all[i].tid0 > tid })
	return all[i-1]
}

// placeOf returns the coordinates of the cohort's thread tid, looking
// in l first: most pairs are of one launch.
func (l *plaunch) placeOf(tid int32) scope.Place {
	if tid >= l.tid0 && tid-l.tid0 < int32(l.g.Threads) {
		return l.place(tid)
	}
	return l.ss.launchOf(tid).place(tid)
}

// local returns the launch's own index of block blk, a cohort number.
func (l *plaunch) local(blk int) int { return blk - int(l.blk0) }
