package hb

import (
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// A pthread is one thread under the precise mode. What it knows of other
// threads is one vclock, shared with the threads it last met at a barrier
// until it acquires something of its own, beside its own clock c: so a
// block's threads cost one vclock between barriers, not one each.
//
// A thread's state is read and written by its own calls, and by barriers
// while it is held in them, with no lock; but pend and poll, which
// evidence reads for the threads of the reporter's block, are written
// under mu, and read under it by other threads.
type pthread struct {
	l     *plaunch
	blk   *pblock
	mu    sync.Mutex // guards cold's pend and poll, and cold itself, against other threads' reads
	tid   int32
	rank  int32 // the thread's index in its block's states
	place scope.Place
	n     counters // its accesses and checks, added to the totals at its block's end
	c     uint64   // the thread's clock: its accesses so far are at c (see epoch)
	busy  uint64   // the clock of its last access, 0 before its first (see last)
	know  *vclock  // what the thread knows of other threads
	cold  *pcold   // what its fences and strong reads left; nil until its first (see coldState)
	seen  seenMemo // the granules it accessed weakly at its clock (see seen.go)
	seq   seqMemo  // whether the runtime's sequenced reports hold its engine's mutexes (see sequenced)
}

// A seqMemo is what a thread found out the first time it asked whether
// its launch's sequenced reports are the engine's (seqUnknown before).
type seqMemo uint8

const (
	seqUnknown seqMemo = iota
	seqOwn             // the engine is one of the launch's sequencing observers
	seqOther           // another observer sequences the launch's accesses
)

// sequenced reports whether the runtime holds the engine's Sequence
// mutex of the element of a sequenced access of th (gpu.Access.Sequenced),
// that is, whether self, the engine's observer, sequences th's launch.
// A launch's sequencing observers do not change while it runs, so the
// thread asks the runtime once (its state is zeroed at its block's
// start), rather than compare interfaces at every access.
func (th *pthread) sequenced(t *gpu.Thread, self gpu.Sequencer) bool {
	if th.seq == seqUnknown {
		th.seq = seqOther
		if t.SequencedBy(self) {
			th.seq = seqOwn
		}
	}
	return th.seq == seqOwn
}

// A pcold is the part of a thread's state that only fences, strong
// reads and releases write, which most threads of a large kernel never
// make: a thread takes one at its first such event (see coldState), so
// that a block's start writes only the hot part of each thread.
type pcold struct {
	// fenced[s] is the view at the thread's last fence of scope s or
	// wider, the release a strong write after it makes to threads s
	// covers; fvc[s] is the same as a vclock, made on first use.
	fenced [scope.System + 1]view
	fvc    [scope.System + 1]*vclock
	// busy[s] is the clock of the thread's last access at its last fence
	// of scope s or wider: fvc[s] names it in place of fenced[s]'s own
	// epoch, which then held no access (see last), while fenced[s] keeps
	// the fence's clock, which tells its fences apart and in order.
	busy [scope.System + 1]uint64
	// made is the last vclock the thread made of one of its views, and
	// madeOf that view: a later view of the thread knows all it knew, so
	// the next one is made from it (see viewClock).
	made   *vclock
	madeOf view
	// pend is what the thread's strong reads so far found released to
	// it and no fence has acquired. Guarded by the thread's mu.
	pend pending
	// held is the release state the thread's last strong read found, kept
	// as pointers and joined into pend only when a fence needs it or a
	// read of another release state comes (see hold): a thread spinning
	// on one lock or flag pays no join per spin. Guarded by the thread's mu.
	held heldRelease
	// last is the release state the thread's last strong read found,
	// so that a poll of an unchanged flag joins nothing; acq is the one
	// its last acquire load acquired, for the same with acquire loads.
	last    *relInfo
	lastVer uint64
	lastS   scope.Scope
	acq     *relInfo
	acqVer  uint64
	acqS    scope.Scope
	// poll is the last strong read that found a release it did not
	// acquire, for evidence. Guarded by the thread's mu.
	poll pollNote
	// known is the release state a fence last acquired a held read of
	// whole, and what of it.
	known knownRelease
	// sc holds the fence.sc slots of the thread's instances, by scope,
	// once a fence has found them (see scOrder.slots).
	sc [scope.System + 1]*scSlot
	// scSeen is what a fence.sc last read of its slots' views (see
	// fenceWide): kept here, off a fiber's small stack.
	scSeen scViews
	// rmw is the thread's last release by a read-modify-write that is
	// not itself a release (see repeatsRelease).
	rmw releaseMemo
}

// A knownRelease is the parts of a release state r that a thread's fence
// acquired whole (nil for a scope its read did not reach), and the
// thread's clock then: every view of the thread at that clock or later
// covers them, so a release of it joins each into the state's part with
// no walk while the part is still the one acquired.
type knownRelease struct {
	r                *relInfo
	warp, block, dev *vclock
	c                uint64
}

// knownOf returns the parts of r that a view of th at clock at covers for
// certain (see knownRelease); none if th's last whole acquire was of
// another state or after at.
func (th *pthread) knownOf(r *relInfo, at uint64) knownRelease {
	if c := th.cold; c != nil && c.known.r == r && at >= c.known.c {
		return c.known
	}
	return knownRelease{}
}

// fencedAt returns the thread's clock at its last fence of scope s or
// wider, the clock of the view released(s) returns.
func (th *pthread) fencedAt(s scope.Scope) uint64 {
	if th.cold == nil {
		return 0
	}
	return th.cold.fenced[s].self.c
}

// coldState returns the thread's cold state, taking its block's slot for
// the thread and emptying it at the first call; a thread of no block (a
// host access's, see HostAccess) makes its own. The pointer is set
// under mu, where other threads read it.
func (th *pthread) coldState() *pcold {
	if th.cold != nil {
		return th.cold
	}
	var c *pcold
	if th.blk != nil {
		c = &th.blk.coldSlots()[th.rank]
		*c = pcold{}
	} else {
		c = new(pcold)
	}
	th.mu.Lock()
	th.cold = c
	th.mu.Unlock()
	return c
}

// A pollNote is a strong read that has not acquired: where it read.
type pollNote struct {
	mem  *gpu.Memory
	idx  int
	site gpu.Site
}

// self returns the thread's current epoch.
func (th *pthread) self() epoch { return epoch{th.tid, int32(th.place.Block), th.c} }

// last returns the epoch of the thread's last access, or its epoch 0
// (which every thread knows) before its first. Until the thread's clock
// next moves, knowing last is knowing every event of the thread that
// self does: an epoch in which the thread made no access holds no event
// (a fence, a barrier or a collective records none). So a view the thread
// publishes before its clock moves names last in place of self, and a
// thread that already knows last, as every lane does after a __syncwarp
// that the lane made no access since, learns nothing from it: the fences
// of a warp's lanes after a __syncwarp, or a __syncwarp right after
// another, make no vclock.
func (th *pthread) last() epoch { return epoch{th.tid, int32(th.place.Block), th.busy} }

// now returns what the thread knows now, its own epoch included.
func (th *pthread) now() view { return view{k: th.know, self: th.self(), known: true} }

// knows reports whether the event at e happens before the thread's next
// event: it is the thread's own, or something ordered it before.
func (th *pthread) knows(e epoch) bool { return e.tid == th.tid || th.know.knows(e) }

// A prec is one recorded access of the precise mode's shadow. It holds
// no pointer: its site is the handle of a slot of the engine's site cache
// (see Engine.slotOf), so that the collector scans neither the pages of
// first records nor the sets of members, and a record takes 24 bytes.
type prec struct {
	e     epoch
	path  uint32 // the handle of the access's site slot (shared.SiteSlot.Handle); 0 for none
	op    gpu.Op
	order gpu.Order
	scope scope.Scope
	write bool // a store or an RMW that wrote (a failed CAS only reads)
}

func (x *prec) strong() bool { return x.order != gpu.Weak }

// record describes access a of th, made at site through call path path
// (neither, without history), in x, and notes th's clock as that of its
// last access (see last). It writes x as three 8-byte words
// (see copyTo): a record is copied soon after it is made, and a load
// that spans several narrower stores still in flight waits for them to
// reach the cache, where a load of one whole store is forwarded from it.
func (th *pthread) record(x *prec, a *gpu.Access, site gpu.Site, path *shared.SiteSlot) {
	var h uint32
	if path != nil || !site.IsZero() {
		h = th.l.p.handle(site, path)
	}
	th.busy = th.c
	w := x.words()
	binary.LittleEndian.PutUint64(w[0][:], uint64(uint32(th.tid))|uint64(uint32(th.place.Block))<<32)
	binary.LittleEndian.PutUint64(w[1][:], th.c)
	x.setTail(h, a.Op, a.Order, a.Scope, a.Op.Writes() && a.Succeeded())
}

// setTail sets x's path, op, order, scope and write, its last eight
// bytes, in one store (see record).
func (x *prec) setTail(path uint32, op gpu.Op, o gpu.Order, s scope.Scope, write bool) {
	var w uint64
	if write {
		w = 1
	}
	binary.LittleEndian.PutUint64(x.words()[2][:], uint64(path)|uint64(op)<<32|uint64(o)<<40|uint64(s)<<48|w<<56)
}

// words returns x's three 8-byte words; precLayout says which fields each
// holds (TestSetTailSetsEachField checks it).
func (x *prec) words() *[3][8]byte { return (*[3][8]byte)(unsafe.Pointer(x)) }

// copyTo copies x to y a word at a time, as record wrote it, so that
// each load is forwarded from one store (see record).
func (x *prec) copyTo(y *prec) {
	s, d := (*[3]uint64)(unsafe.Pointer(x)), (*[3]uint64)(unsafe.Pointer(y))
	d[0], d[1], d[2] = s[0], s[1], s[2]
}

// precLayout is true when prec's fields lie where record and setTail
// write them: the epoch's thread and block in word 0, its clock in word
// 1, and path, op, order, scope and write in word 2, in that order.
const precLayout = unsafe.Sizeof(prec{}) == 24 && unsafe.Offsetof(prec{}.e) == 0 &&
	unsafe.Offsetof(epoch{}.tid) == 0 && unsafe.Offsetof(epoch{}.blk) == 4 && unsafe.Offsetof(epoch{}.c) == 8 &&
	unsafe.Offsetof(prec{}.path) == 16 && unsafe.Offsetof(prec{}.op) == 20 && unsafe.Offsetof(prec{}.order) == 21 &&
	unsafe.Offsetof(prec{}.scope) == 22 && unsafe.Offsetof(prec{}.write) == 23

// races reports whether x, the thread's access, races with y, an earlier
// access of the location: they conflict, nothing orders y before x, and
// they are not a morally strong pair. A weak access has thread scope,
// which covers no other thread, so a pair with a weak access is never
// morally strong, and only a pair of strong ones pays for the scope test.
// It counts the pair as compared.
func (th *pthread) races(x, y *prec) bool {
	th.n.pairs++
	if y.e.tid == th.tid || !(x.write || y.write) {
		return false
	}
	if x.strong() && y.strong() && th.morallyStrong(x, y) {
		return false
	}
	return !th.know.knows(y.e)
}

// morallyStrong reports whether x, the thread's strong access, and y,
// another thread's, are a morally strong pair: each one's scope includes
// both threads, and they are not volatile lanes of one warp.
func (th *pthread) morallyStrong(x, y *prec) bool {
	py := th.l.placeOf(y.e.tid)
	return y.scope.Covers(py, th.place) && x.scope.Covers(th.place, py) && !warpVolatile(x, y, th.place, py)
}

// warpVolatile reports whether x and y, accesses of threads at px and py,
// are volatile accesses of two lanes of one warp: the warp-synchronous
// rule. PTX calls such a pair morally strong, but the pre-Volta idiom it
// allows (lanes reading each other's volatile shared memory with no
// __syncwarp) breaks under independent thread scheduling, so the mode
// counts it a race unless happens-before orders it.
func warpVolatile(x, y *prec, px, py scope.Place) bool {
	return x.order == gpu.Volatile && y.order == gpu.Volatile && px.Warp == py.Warp
}

// prune drops from recs the accesses x makes redundant: those ordered
// before x that every later access racing with them would also race with
// x. That holds when x writes or both only read, and x is weak, or both
// are the thread's strong accesses, x's scope is no wider, and x is
// volatile if the earlier one is (see supersedes).
func (th *pthread) prune(recs []prec, x *prec) []prec {
	n := 0
	for i := range recs {
		if !th.redundant(&recs[i], x) {
			if n != i { // a record moves only past a dropped one (see dropReadsOf)
				recs[n] = recs[i]
			}
			n++
		}
	}
	return recs[:n]
}

// redundant reports whether x makes y, an earlier access of the location,
// redundant (see prune).
func (th *pthread) redundant(y, x *prec) bool {
	switch {
	case y.write && !x.write:
		return false
	case x.strong() && !(y.strong() && y.e.tid == x.e.tid && x.scope <= y.scope && supersedes(x, y)):
		return false
	}
	return th.knows(y.e)
}

// acquireFrom applies strong read a of loc's value: an acquire, acq_rel
// or seq_cst load or read-modify-write acquires now what loc's release
// state holds for its scope; another
// strong read leaves it pending for a later fence, at each fence scope.
func (th *pthread) acquireFrom(loc *ploc, a *gpu.Access, site gpu.Site) {
	r := loc.rel
	if r == nil {
		return
	}
	if a.Order.Acquires() {
		th.acquire(r, a.Scope)
		return
	}
	c := th.coldState()
	if c.last == r && c.lastVer == r.ver && c.lastS == a.Scope {
		return
	}
	c.last, c.lastVer, c.lastS = r, r.ver, a.Scope
	snap := heldRelease{r: r, m: a.Scope, warp: part(r.warps, th.place.Warp), block: part(r.blocks, th.place.Block), dev: r.dev}
	th.mu.Lock()
	defer th.mu.Unlock()
	th.hold(snap)
	c.poll = pollNote{mem: a.Mem, idx: a.Index, site: site}
}

// A heldRelease is what a strong read of scope m found in the release
// state r: the parts of r that reach the reader's warp and block, and
// the device's, as they were then. Each part of one release state only
// grows (a release sequence's releases are joined into it; a new
// sequence makes a new state), so a later read of the same state at the
// same scope finds a superset of an earlier one's.
type heldRelease struct {
	r                *relInfo
	m                scope.Scope
	warp, block, dev *vclock
}

// hold keeps snap as the thread's held release, replacing the held one
// when snap is of the same state and scope (snap knows all it knew), and
// otherwise joining the held one into pend first. Preconditions: th.mu
// held, th.cold made.
func (th *pthread) hold(snap heldRelease) {
	if h := &th.cold.held; h.r != nil && (h.r != snap.r || h.m != snap.m) {
		th.foldHeld()
	}
	th.cold.held = snap
}

// foldHeld adds the held release's parts to what is pending, each at its
// scope, and drops it. Preconditions: th.mu held.
func (th *pthread) foldHeld() {
	if th.cold == nil || th.cold.held.r == nil {
		return
	}
	var buf [3]*vclock
	h := &th.cold.held
	for i, v := range h.parts(buf[:0]) {
		th.cold.pend.add(v, scope.Warp+scope.Scope(i), &th.n) // parts come warp, block, device
	}
	*h = heldRelease{}
}

// whole returns the parts of the held release h that a fence of its
// read's scope or wider acquires, for a thread at clock c.
func (h *heldRelease) whole(c uint64) knownRelease {
	k := knownRelease{r: h.r, warp: h.warp, c: c}
	if h.m >= scope.Block {
		k.block = h.block
	}
	if h.m >= scope.Device {
		k.dev = h.dev
	}
	return k
}

// parts appends to into the parts of the held release h that reach the
// reader at its read's scope h.m: what a fence of that scope or wider
// acquires (see fenceAcquire).
func (h *heldRelease) parts(into []*vclock) []*vclock {
	into = append(into, h.warp)
	if h.m >= scope.Block {
		into = append(into, h.block)
	}
	if h.m >= scope.Device {
		into = append(into, h.dev)
	}
	return into
}

// heldKnows reports whether the held release, acquired by a fence of
// system scope, would order e before the thread. Preconditions: th.mu
// held.
func (th *pthread) heldKnows(e epoch) bool {
	if th.cold == nil {
		return false
	}
	h := th.cold.held
	switch {
	case h.r == nil:
		return false
	case h.m >= scope.Device && h.dev.knows(e):
		return true
	case h.m >= scope.Block && h.block.knows(e):
		return true
	}
	return h.m >= scope.Warp && h.warp.knows(e)
}

// acquire applies an acquire load of scope m that read from a location
// whose release state is r. What the thread knows only grows, so once it
// has acquired r at a version and scope, acquiring it again joins
// nothing: a thread polling an unchanged flag with acquire loads pays no
// join per poll.
func (th *pthread) acquire(r *relInfo, m scope.Scope) {
	c := th.coldState()
	if c.acq == r && c.acqVer == r.ver && c.acqS == m {
		return
	}
	th.know = join(th.know, r.acquirable(th.place, m, &th.n), &th.n)
	c.acq, c.acqVer, c.acqS = r, r.ver, m
}

// fence applies a fence of scope s: PTX's fence.acq_rel. It acquires the
// releases pending for s, then makes what the thread knows its release
// for scope s and every narrower one, and starts a new epoch, so that
// accesses after the fence are not part of the release.
func (th *pthread) fence(s scope.Scope) {
	th.fenceAcquire(s)
	th.fenceRelease(s)
}

// fenceAcquire is the acquire half of a fence of scope s: it acquires
// the releases pending for s (see takeAcquire), in one join.
func (th *pthread) fenceAcquire(s scope.Scope) {
	var buf [5]*vclock
	th.know = joinAll(th.takeAcquire(s, append(buf[:0], th.know)), nil, &th.n)
	th.settle()
}

// takeAcquire appends to into what a fence of scope s acquires, and
// drops it from what is pending: the parts the thread's strong reads
// left pending that s reaches, and a held release read at scope s or
// narrower, taken whole, straight from the hold (a held release read
// wider is folded into what is pending first). The caller joins them
// and then settles.
func (th *pthread) takeAcquire(s scope.Scope, into []*vclock) []*vclock {
	c := th.coldState()
	th.mu.Lock()
	defer th.mu.Unlock()
	if h := &c.held; h.r != nil && h.m <= s {
		into = h.parts(into)
		c.known, *h = h.whole(th.c), heldRelease{}
	} else {
		th.foldHeld()
	}
	return c.pend.take(s, into)
}

// fenceRelease is the release half of a fence of scope s: what the
// thread knows becomes its release for scope s and every narrower one,
// and a new epoch starts.
func (th *pthread) fenceRelease(s scope.Scope) {
	w, c := th.now(), th.coldState()
	for i := scope.Thread; i <= s; i++ {
		c.fenced[i], c.fvc[i], c.busy[i] = w, nil, th.busy
	}
	th.c++
}

// settle, after a fence took what it acquires, drops the poll note once
// nothing is pending, and forgets the last strong read's state, which the
// fence may have acquired. Preconditions: th.cold made.
func (th *pthread) settle() {
	c := th.cold
	c.last = nil
	th.mu.Lock()
	defer th.mu.Unlock()
	if c.pend.n == 0 {
		c.poll = pollNote{}
	}
}

// keepRelease keeps mat, the vclock of the view the thread's fence of
// scope s just took as its release (see fenceRelease), as that release's
// vclock at every scope up to s, and as the last vclock the thread made
// of one of its views (see viewClock). Preconditions: th.cold made.
func (th *pthread) keepRelease(s scope.Scope, mat *vclock) {
	c := th.cold
	for i := scope.Thread; i <= s; i++ {
		c.fvc[i] = mat
	}
	c.made, c.madeOf = mat, c.fenced[s]
}

// releases reports whether x, an access of the thread, may release: it
// is a release, acq_rel or seq_cst store or read-modify-write, or a
// strong write after a fence of the thread (a
// fence of any scope sets the release of warp scope, the narrowest a
// strong write releases at). Any other access leaves a location's
// release state as it was, or clears it.
func (th *pthread) releases(x *prec) bool {
	return x.order.Releases() && x.op.Writes() || x.write && x.strong() && th.cold != nil && th.cold.fenced[scope.Warp].known
}

// released returns the thread's release for scope s as a vclock: the view
// of its last fence of scope s or wider.
func (th *pthread) released(s scope.Scope) *vclock {
	c := th.cold
	if c == nil {
		return nil // no fence
	}
	if c.fvc[s] == nil && c.fenced[s].known {
		c.fvc[s] = th.releaseOf(s)
	}
	return c.fvc[s]
}

// releaseOf makes the vclock of the view of the thread's last fence of
// scope s, sharing a narrower scope's when one fence set both.
func (th *pthread) releaseOf(s scope.Scope) *vclock {
	c := th.coldState()
	for i := scope.Thread; i < s; i++ {
		if c.fvc[i] != nil && c.fenced[i] == c.fenced[s] {
			return c.fvc[i]
		}
	}
	return th.viewClock(c.fenced[s], c.busy[s])
}

// viewClock returns the vclock of w, a view of the thread whose last
// access by the end of w's epoch was at clock busy: w's own epoch is then
// named by busy's, which knows the same events (see last). It starts from
// the vclock the thread made last when that one's view is w or came at an
// earlier epoch, which w then covers (what a thread knows only grows), so
// the result is the same least vclock above w; but it is the next member
// of made's lineage, so that the releases of a thread that fences twice
// between two acquires form one chain with what it acquired.
func (th *pthread) viewClock(w view, busy uint64) *vclock {
	var base *vclock
	c := th.coldState()
	if c.madeOf == w || c.madeOf.self.c < w.self.c {
		base = c.made
	}
	named := w
	named.self.c = busy
	v := joinView(base, named, &th.n)
	c.made, c.madeOf = v, w
	return v
}

// sortEpochs sorts es by thread.
func sortEpochs(es []epoch) {
	slices.SortFunc(es, func(a, b epoch) int { return int(a.tid - b.tid) })
}
