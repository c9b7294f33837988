package race

import (
	"sync/atomic"

	"github.com/warpguard/warpguard/gpu"
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
	// seq numbers the launch among its detector's, and before lists the
	// launches running when it started (see crosslaunch.go). While cross
	// is set, its global accesses are checked against theirs in xt.
	seq    uint64
	before []uint64
	cross  atomic.Bool
	xt     *crossTable
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

// dimIndex returns the point of extent d at linear index i, x fastest, as
// the runtime numbers threads and blocks.
func dimIndex(d gpu.Dim3, i int) gpu.Dim3 {
	x, y := max(d.X, 1), max(d.Y, 1)
	return gpu.Dim3{X: i % x, Y: i / x % y, Z: i / (x * y)}
}
