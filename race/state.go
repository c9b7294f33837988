package race

import (
	"fmt"
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// launch is the detector's state for one running launch: the grid barrier
// epoch, the blocks that have started, and the memory metadata. A new launch
// starts from nothing, since a kernel boundary orders every access.
//
// Blocks are found without a lock: two blocks starting at once took turns
// on one mutex, and a turn that parked a goroutine cost a micro kernel
// more than its whole launch.
type launch struct {
	d       *Detector
	g       *gpu.Grid
	grid    atomic.Uint32           // completed grid.Sync rounds
	block   []atomic.Pointer[block] // by linear block id, from its start to the launch's end
	mem     *shadows
	lk      locker   // how checks lock entries
	central *central // the checker goroutine, with Options.Central
}

// block is a running block's synchronization state.
type block struct {
	id      int
	bar     atomic.Uint32 // completed __syncthreads rounds
	threads []thread
	warps   []warp
	// chunks are the threads' chunks of first records, by rank, kept
	// with the block's state from launch to launch, and firstBytes their
	// size (see first.go).
	chunks     []firstChunkSet
	firstBytes atomic.Int64
}

// thread is one thread's synchronization state. The fence marks are
// written only by the thread (or, with the central checker, by the checker
// in the thread's order) and read by any thread checking an access the
// thread made, so they are atomic; the rest is the thread's own.
type thread struct {
	l     *launch
	blk   *block
	w     *warp
	gid   int
	rank  int
	lane  int
	gwarp int // global warp id
	// seq numbers the thread's fences of warp scope or wider (releases
	// included), from 1; a record holds its value at the access. Only the
	// thread writes it.
	seq atomic.Uint32
	// last holds, by fenceSlot, the seq of the thread's last fence in that
	// slot or a wider one: the thread fenced adequately since a record iff
	// last[slot] > record.seq (see fencedSince). One number per record,
	// instead of a count per slot, keeps a record at 32 bytes.
	last [nFence]atomic.Uint32
	// rel is last for the thread's release accesses, with the central
	// checker only: the accessing thread marks them as it reports them,
	// while the checker marks the plain fences in last (see central.go).
	rel [nFence]atomic.Uint32
	// The cooperative-groups tile syncs (tiles wider than a warp) the
	// thread completed, and the block ranks [tileLo, tileHi) of the last.
	tileN          atomic.Uint32
	tileLo, tileHi atomic.Int32
	locks          held // this thread's own lock table

	cacheMem *gpu.Memory // the memory last accessed, and its metadata
	cache    *shadow
	firsts   firstList // the thread's first records (see first.go)
	n        counters  // this thread's share of the detector's counters
}

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
		panic(fmt.Sprintf("race: thread %d made 2^32 fences in launch %q; the detector numbers a thread's fences in 32 bits", th.gid, th.l.g.Name))
	}
	return i, n
}

// mark records fence n, counted in slot i, as the last of slots 0..i.
func mark(last *[nFence]atomic.Uint32, i int, n uint32) {
	for j := 0; j <= i; j++ {
		last[j].Store(n)
	}
}

// place returns th's coordinates for scope comparisons.
func (th *thread) place() scope.Place {
	return scope.Place{Thread: th.gid, Warp: th.gwarp, Block: th.blk.id}
}

func newLaunch(d *Detector, g *gpu.Grid) *launch {
	lk := newLocker(d.opt, g.Warps*min(g.Blocks, 100), d.stripes)
	if d.opt.Central {
		lk.kind = lockNone // one goroutine checks: nothing to exclude
	}
	return &launch{d: d, g: g, block: make([]atomic.Pointer[block], g.Blocks), mem: newShadows(d), lk: lk}
}

// start allocates block id's state when the block starts to run.
func (l *launch) start(id int) {
	g := l.g
	b := l.d.newBlock(g)
	b.id = id
	// Lanes and warps counted as the ranks go: two divisions per thread
	// were a tenth of a micro kernel's block start.
	lane, w := 0, 0
	for r := range b.threads {
		th := &b.threads[r]
		th.l, th.blk, th.rank, th.gid = l, b, r, id*g.BlockSize+r
		th.firsts.chunks = &b.chunks[r]
		th.lane, th.gwarp, th.w = lane, id*g.Warps+w, &b.warps[w]
		if lane++; lane == g.WarpSize {
			lane, w = 0, w+1
		}
	}
	l.block[id].Store(b)
}

// newBlock returns zeroed state for a block of g, reusing one an earlier
// launch of the same shape left: allocating a block's threads and warp
// clocks afresh was most of the detector's cost on a short launch, in
// garbage collection.
func (d *Detector) newBlock(g *gpu.Grid) *block {
	if b, ok := d.blocks.Get().(*block); ok && len(b.threads) == g.BlockSize && len(b.warps) == g.Warps && b.warps[0].n == g.WarpSize {
		for i := range b.threads {
			b.threads[i].reset()
		}
		for w := range b.warps {
			b.warps[w].reset()
		}
		b.bar.Store(0)
		d.bytes.Add(b.firstBytes.Load()) // its first records' chunks are in use again
		return b
	}
	b := &block{threads: make([]thread, g.BlockSize), warps: make([]warp, g.Warps), chunks: make([]firstChunkSet, g.BlockSize)}
	for w := range b.warps {
		b.warps[w].init(g.WarpSize, w*g.WarpSize)
	}
	return b
}

// reset zeroes th for a new launch but keeps the arrays of its lock
// table and of publish's scratch, as warp.reset keeps the warp's. Every
// insert into a hash table is a CAS(0→key), a candidate acquire, so
// growing each thread's table afresh in every launch was an eighth of
// lib/hashtable's time under the detector. The arrays are cleared, so a
// pooled block keeps no memory of the last launch alive.
func (th *thread) reset() {
	locks, ids := th.locks.keep()
	*th = thread{}
	th.locks.locks, th.locks.ids = locks, ids
}

// recycle keeps the launch's blocks for reuse once nothing refers to
// their threads: after the launch's metadata is freed.
func (l *launch) recycle() {
	for i := range l.block {
		if b := l.block[i].Swap(nil); b != nil {
			l.d.bytes.Add(-b.firstBytes.Load())
			l.d.blocks.Put(b)
		}
	}
}

// end frees block id's shared memories. Its state stays: metadata records
// name its threads until the launch ends.
func (l *launch) end(id int) { l.mem.freeBlock(id) }

// threadOf returns t's state, finding it once per thread and keeping it
// on t afterwards. A state another detector keeps there (two detectors
// observing one launch) is not d's: d looks its own up again.
func (d *Detector) threadOf(t *gpu.Thread) *thread {
	if th, ok := t.ObserverState().(*thread); ok && th.l.d == d {
		return th
	}
	return d.lookupThread(t)
}

//go:noinline
func (d *Detector) lookupThread(t *gpu.Thread) *thread {
	b := d.launchOf(t.Grid()).block[t.Block()].Load()
	th := &b.threads[t.Rank()]
	if _, taken := t.ObserverState().(*thread); !taken {
		t.SetObserverState(th) // else another detector's: leave it, or both look up at every access
	}
	return th
}

// dimIndex returns the point of extent d at linear index i, x fastest, as
// the runtime numbers threads and blocks.
func dimIndex(d gpu.Dim3, i int) gpu.Dim3 {
	x, y := max(d.X, 1), max(d.Y, 1)
	return gpu.Dim3{X: i % x, Y: i / x % y, Z: i / (x * y)}
}

// tileSync records a sync of the tile of ranks [first, first+n).
func (b *block) tileSync(first, n int) {
	for r := first; r < first+n && r < len(b.threads); r++ {
		th := &b.threads[r]
		th.tileLo.Store(int32(first))
		th.tileHi.Store(int32(first + n))
		th.tileN.Add(1)
	}
}

// tiledWith reports whether th has completed a tile sync since its count
// was n, and the last one held o: then o passed that sync after th's
// access at count n, which it orders.
func (th *thread) tiledWith(n uint32, o *thread) bool {
	if th.tileN.Load() == n {
		return false
	}
	r := int32(o.rank)
	return th.tileLo.Load() <= r && r < th.tileHi.Load()
}
