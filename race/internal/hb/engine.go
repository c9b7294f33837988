package hb

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// An Engine is the exact mode's checker (race.Options.Precise): one
// happens-before over every launch it observes. One mutex orders every
// event of every launch, so the order the events are applied in is one
// total order consistent with each thread's program order, and every
// field below is guarded by it.
//
// Launches that overlap share a session: their threads, blocks and warps
// are numbered apart in it, so a thread's place tells launches apart, and
// they check against one shadow of global memory per device. A launch
// that starts while none runs starts a new session knowing everything
// before it (host order: each earlier launch returned before it started),
// and the shadow starts empty. A launch that starts while others run
// knows, of the session's launches, those that had ended (see LaunchStart).
type Engine struct {
	shift    uint          // log2 of the granule size
	sites    *shared.Sites // finds the site of a report's access when it came without one
	sink     *shared.Sink  // keeps the reports
	mu       sync.Mutex
	launches map[*gpu.Grid]*plaunch // the running ones
	sess     session
	// stripes sequence each element's strong reads and writes with their
	// checks (see Sequence); they are taken before mu.
	stripes [preciseStripes]sync.Mutex
}

// A session is the launches checked against each other: a run of
// overlapping launches, from one that started while none ran.
type session struct {
	all     []*plaunch         // by first thread number, ended ones included
	global  map[uint64]*shadow // the shadow of global memory, by device
	running int
	threads int32 // numbers handed out: threads, warps, blocks
	warps   int32
	blocks  int32
}

// sessionThreads bounds the threads of one session: epochs name a
// thread by a signed 32-bit number, and read sets key two classes of
// access per thread in one (see setKey).
const sessionThreads = 1 << 30

// preciseStripes is how many mutexes sequence the elements the precise
// mode watches: enough that threads on different elements rarely share
// one, since every access then also takes mu.
const preciseStripes = 256

// New returns an engine checking granules of 1<<shift bytes, which finds
// missing sites with sites and keeps its reports in sink.
func New(shift uint, sites *shared.Sites, sink *shared.Sink) *Engine {
	return &Engine{shift: shift, sites: sites, sink: sink, launches: map[*gpu.Grid]*plaunch{}}
}

// Sequence returns the mutex under which the runtime performs and reports
// the stores, read-modify-writes and strong loads of element i of m (see
// gpu.Sequencer). Because the check of each such access happens before the
// mutex is unlocked, the order in which the engine checks an element's
// writes and strong reads is the order in which they took effect, on
// every executor: a strong read acquires from the write whose value it
// returned, with no waiting and no inference from values.
func (p *Engine) Sequence(m *gpu.Memory, i int) *sync.Mutex {
	h := (m.DeviceID*0x9e3779b97f4a7c15 ^ m.ID*0xbf58476d1ce4e5b9) + uint64(i)
	return &p.stripes[h%preciseStripes]
}

// A plaunch is one launch under the precise mode: its resident blocks'
// threads, its numbers in the session and what it knows at its start.
type plaunch struct {
	p      *Engine
	g      *gpu.Grid
	blocks map[int]*pblock
	shared map[int]*shadow // by block: a block's shared memory dies with it
	spare  [][]pthread     // the thread states of ended blocks, for the next
	// tid0, warp0 and blk0 are the session's numbers of the launch's first
	// thread, warp and block.
	tid0, warp0, blk0 int32
	// base is what its threads know at their start: every block of the
	// session's launches that had ended (host order).
	base  *vclock
	ended bool
}

// threads returns thread states for a block, those of an ended block if
// there is one: a launch allocates them for its resident blocks only.
// BlockStart overwrites each.
func (l *plaunch) threads() []pthread {
	if n := len(l.spare); n > 0 {
		ths := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return ths
	}
	return make([]pthread, l.g.BlockSize)
}

// A pblock holds the threads of one resident block, by rank.
type pblock struct {
	threads []pthread
}

// LaunchStart starts launch g in the current session, or in a new one if
// no launch runs. Its threads know every block of the session's launches
// that ended before it started, and nothing of those that run. A launch
// that would number more than sessionThreads threads in its session fails
// with a panic, which the runtime returns as the launch's error.
func (p *Engine) LaunchStart(g *gpu.Grid) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ss := &p.sess
	if ss.running == 0 {
		*ss = session{global: map[uint64]*shadow{}}
	}
	if int64(ss.threads)+int64(g.Threads) > sessionThreads {
		panic(fmt.Sprintf("race: launch %q has %d threads, and the launches running with it (and those that ran since none did) %d: the precise mode numbers a run of overlapping launches' threads in 31 bits, two keys each, at most %d in all",
			g.Name, g.Threads, ss.threads, sessionThreads))
	}
	l := &plaunch{p: p, g: g, blocks: map[int]*pblock{}, shared: map[int]*shadow{},
		tid0: ss.threads, warp0: ss.warps, blk0: ss.blocks, base: ss.endedBlocks()}
	ss.threads += int32(g.Threads)
	ss.warps += int32(g.Blocks * g.Warps)
	ss.blocks += int32(g.Blocks)
	ss.all = append(ss.all, l)
	ss.running++
	p.launches[g] = l
}

// endedBlocks returns a vclock that knows every block of the session's
// launches that have ended, nil if none has.
func (ss *session) endedBlocks() *vclock {
	var bs []bgen
	for _, l := range ss.all {
		for b := range int32(l.g.Blocks) {
			if l.ended {
				bs = append(bs, bgen{blk: l.blk0 + b, k: math.MaxUint32})
			}
		}
	}
	if bs == nil {
		return nil
	}
	return &vclock{b: bs}
}

// LaunchEnd ends launch g: its threads are gone, and what other threads
// learned of them lives on in their vclocks and in the session's shadow.
func (p *Engine) LaunchEnd(g *gpu.Grid) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.launches[g]; l != nil {
		l.ended = true
		p.sess.running--
		delete(p.launches, g)
	}
}

// BlockStart makes the block's threads, each at clock 1 knowing what its
// launch knew at its start.
func (p *Engine) BlockStart(g *gpu.Grid, b int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.launches[g]
	if l == nil {
		return
	}
	blk := &pblock{threads: l.threads()}
	for r := range blk.threads {
		tid := l.tid0 + int32(b*g.BlockSize+r)
		blk.threads[r] = pthread{l: l, tid: tid, place: l.place(tid), c: 1, know: l.base}
	}
	l.blocks[b] = blk
}

// BlockEnd forgets the block's threads and its shared memory's shadow:
// what other threads learned of them lives on in their vclocks and in the
// shadow of global memory.
func (p *Engine) BlockEnd(g *gpu.Grid, b int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.launches[g]; l != nil {
		if blk := l.blocks[b]; blk != nil {
			l.spare = append(l.spare, blk.threads)
		}
		delete(l.blocks, b)
		delete(l.shared, b)
	}
}

// place returns the coordinates of the launch's thread tid, a session
// number, for scope checks: in session numbers, so that a block or warp
// of one launch is never another's.
func (l *plaunch) place(tid int32) scope.Place {
	gid := int(tid - l.tid0)
	b, r := gid/l.g.BlockSize, gid%l.g.BlockSize
	return scope.Place{Thread: int(tid), Warp: int(l.warp0) + b*l.g.Warps + r/l.g.WarpSize, Block: int(l.blk0) + b}
}

// launchOf returns the session's launch of thread tid.
func (p *Engine) launchOf(tid int32) *plaunch {
	all := p.sess.all
	i := sort.Search(len(all), func(i int) bool { return all[i].tid0 > tid })
	return all[i-1]
}

// placeOf returns the coordinates of the session's thread tid, looking
// in l first: most pairs are of one launch.
func (l *plaunch) placeOf(tid int32) scope.Place {
	if tid >= l.tid0 && tid-l.tid0 < int32(l.g.Threads) {
		return l.place(tid)
	}
	return l.p.launchOf(tid).place(tid)
}

// local returns the launch's own index of block blk, a session number.
func (l *plaunch) local(blk int) int { return blk - int(l.blk0) }

// thread returns t's state, or nil for a launch the mode does not know.
func (p *Engine) thread(t *gpu.Thread) *pthread {
	if th, ok := t.ObserverState().(*pthread); ok && th.l.p == p {
		return th
	}
	l := p.launches[t.Grid()]
	if l == nil || l.blocks[t.Block()] == nil {
		return nil
	}
	th := &l.blocks[t.Block()].threads[t.Rank()]
	if t.ObserverState() == nil {
		t.SetObserverState(th)
	}
	return th
}

// shadowOf returns the shadow of the memory m: the session's for global
// memory of m's device, the launch's block's for shared memory.
func (l *plaunch) shadowOf(m *gpu.Memory) *shadow {
	if m.Space != gpu.SharedSpace {
		g := l.p.sess.global
		s := g[m.DeviceID]
		if s == nil {
			s = new(shadow)
			g[m.DeviceID] = s
		}
		return s
	}
	s := l.shared[m.Block]
	if s == nil {
		s = new(shadow)
		l.shared[m.Block] = s
	}
	return s
}

// Access checks access a of t, made at site, against the shadow of every
// granule it touches, records it there, and applies what it synchronizes.
func (p *Engine) Access(t *gpu.Thread, a *gpu.Access, site gpu.Site) {
	p.mu.Lock()
	defer p.mu.Unlock()
	th := p.thread(t)
	if th == nil {
		return
	}
	ac := access{th: th, t: t, a: a, site: site, x: th.record(a, site)}
	if a.Order == gpu.Release {
		ac.rv = th.now()
	}
	sh := th.l.shadowOf(a.Mem)
	first, last := p.granules(a)
	for g := first; g <= last; g++ {
		p.visit(&ac, sh, g, g == first)
	}
	if a.Order == gpu.Release {
		th.c++
	}
}

// An access is one Access call on its way through the granules it
// touches: the thread, the access, its record, and, for a release store,
// the view it releases.
type access struct {
	th   *pthread
	t    *gpu.Thread
	a    *gpu.Access
	site gpu.Site
	x    prec
	rv   view
}

// visit checks ac against granule g of sh and records it there, under
// the granule's page lock. On the granule its element starts at (head),
// a strong read first acquires from the release state there, and a write
// then sets it. The runtime sequences strong reads and every write of
// the element with the engine (see Sequence): the last write recorded at
// the head is the one a strong read read from.
func (p *Engine) visit(ac *access, sh *shadow, g uint64, head bool) {
	pg := sh.page(g >> pageBits)
	pg.mu.Lock()
	defer pg.mu.Unlock()
	c := &pg.cells[g&(1<<pageBits-1)]
	if c.quick(ac.th, &ac.x) {
		return
	}
	loc := c.loc(ac.a.Mem.Space)
	if head && ac.a.Op.Reads() && ac.x.strong() {
		ac.th.acquireFrom(loc, ac.a, ac.site)
	}
	p.check(ac.th, ac.t, loc, &ac.x, ac.a)
	if head && ac.x.write {
		loc.written(ac.th, ac.a, ac.rv)
	}
}

// granules returns the first and last granule access a touches, by
// address in its space.
func (p *Engine) granules(a *gpu.Access) (first, last uint64) {
	at := a.Mem.Base + a.Offset
	return at >> p.shift, (at + uint64(max(a.Size, 1)) - 1) >> p.shift
}

// Fence applies a fence of scope s by t: PTX's fence.acq_rel at s. It
// first acquires what the thread's earlier strong reads found released
// within s, then keeps what the thread knows as its release for strong
// writes that follow it.
func (p *Engine) Fence(t *gpu.Thread, s scope.Scope) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if th := p.thread(t); th != nil {
		th.fence(s)
	}
}

// Sync applies a completed barrier or collective.
func (p *Engine) Sync(t *gpu.Thread, s gpu.Sync) {
	p.mu.Lock()
	defer p.mu.Unlock()
	th := p.thread(t)
	if th == nil {
		return
	}
	l := th.l
	switch s.Kind {
	case gpu.SyncThreads:
		l.blockBarrier(l.ranks(s.Block, 0, l.g.BlockSize, ^uint64(0)))
	case gpu.SyncTile:
		l.barrier(l.ranks(s.Block, s.First, s.Count, ^uint64(0)))
	case gpu.SyncWarp:
		if s.Op == "syncwarp" || s.Op == "tile.sync" { // value-exchanging intrinsics order no memory
			w := s.Warp - s.Block*l.g.Warps
			l.barrier(l.ranks(s.Block, w*l.g.WarpSize, l.g.WarpSize, s.Mask))
		}
	case gpu.SyncGrid:
		l.gridBarrier()
	}
}

// ranks returns the threads of block b with ranks first to first+n-1
// whose bit (rank-first) is set in mask.
func (l *plaunch) ranks(b, first, n int, mask uint64) []*pthread {
	blk := l.blocks[b]
	if blk == nil {
		return nil
	}
	var out []*pthread
	for r := first; r < first+n && r < len(blk.threads); r++ {
		if (r-first) >= 64 || mask>>(r-first)&1 != 0 {
			out = append(out, &blk.threads[r])
		}
	}
	return out
}

// gridBarrier applies a grid sync: every resident block passes a
// block-wide barrier, and all of them learn what all knew.
func (l *plaunch) gridBarrier() {
	var v *vclock
	var blocks [][]*pthread
	for b := range l.blocks {
		ths := l.ranks(b, 0, l.g.BlockSize, ^uint64(0))
		v = join(v, l.blockBarrier(ths))
		blocks = append(blocks, ths)
	}
	for _, ths := range blocks {
		for _, th := range ths {
			th.know = v
		}
	}
}

// blockBarrier applies a barrier all of a block's threads ths passed:
// each leaves knowing the join of what all knew and, as one entry, every
// event of the block before the barrier, and starts a new generation. It
// returns what they now know.
func (l *plaunch) blockBarrier(ths []*pthread) *vclock {
	if len(ths) == 0 {
		return nil
	}
	var v *vclock
	var gen uint32
	for _, th := range ths {
		v = join(v, th.know)
		gen = max(gen, th.self().gen())
	}
	v = withBlock(v, int32(ths[0].place.Block), gen+1)
	for _, th := range ths {
		th.know = v
		th.c = uint64(gen+1)<<32 | 1
	}
	return v
}

// barrier orders every event of the threads ths before a partial barrier
// (a warp's or a tile's) before every event after it: each leaves knowing
// the join of what all knew and all their epochs, one vclock they share,
// and starts a new epoch.
func (l *plaunch) barrier(ths []*pthread) {
	var v *vclock
	es := make([]epoch, 0, len(ths))
	for _, th := range ths {
		v = join(v, th.know)
		es = append(es, th.self())
	}
	sortEpochs(es)
	v = join(v, &vclock{e: es})
	for _, th := range ths {
		th.know = v
		th.c++
	}
}
