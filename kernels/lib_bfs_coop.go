package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeQueue = "block-scope-queue"
	injNoGridSync      = "no-grid-sync"
)

// LibBFSCoop computes breadth-first distances from vertex 0 in one
// cooperative launch, the persistent-kernel way: the grid walks the
// levels itself and meets at grid.sync() between them, instead of the
// host launching once per level as lib/bfs does.
//
// The frontier queues live in global memory, two of them used in turn. At
// level L every thread takes grid-strided vertices of queue L%2 and
// claims each unvisited neighbour with a device-scope CAS of its distance
// from -1 to L+1; the winner appends it to queue (L+1)%2 at a slot it
// takes from level L+1's counter with a device-scope atomic add. Each
// level has its own counter, so none is ever reset; a level whose counter
// is zero ends the walk for every thread at once, since all read it after
// the same grid sync. The grid sync orders the appends before the next
// level's reads, and a level's reads of a queue before the appends that
// overwrite it two levels later.
func LibBFSCoop() *Entry {
	return &Entry{
		Name:        "lib/bfs-coop",
		Doc:         "BFS in one cooperative launch: grid.sync() per level, device-scope CAS claims, atomic frontier queue",
		Cooperative: true,
		Injections: []Injection{
			{Name: injBlockScopeQueue, Doc: "the next frontier's counter is advanced with block-scope atomics",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*coopBFS).claim)},
			{Name: injNoGridSync, Doc: "no grid.sync() between levels: a level reads the frontier other blocks still append to",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp},
				Where:  where((*coopBFS).level), Corrupts: true},
		},
		Setup: setupCoopBFS,
	}
}

type coopBFS struct {
	g               graph
	blocks, threads int
	off, adj, dist  gpu.Buffer[int32]
	queues          [2]gpu.Buffer[int32]
	counts          gpu.Buffer[int32] // counts[L]: the vertices at distance L
	inject          string
}

func setupCoopBFS(d *gpu.Device, p Params) (*Run, error) {
	b := newCoopBFS(d, p)
	return &Run{Launch: single(b.config(), b.kernel), Check: b.check}, nil
}

// config is the one cooperative launch of the whole walk.
func (b *coopBFS) config() gpu.LaunchConfig { return coopCfg("bfs-coop", b.blocks, b.threads) }

// newCoopBFS draws the graph of configuration p and puts it, the
// distances and the queues on d.
func newCoopBFS(d *gpu.Device, p Params) *coopBFS {
	b := &coopBFS{blocks: 4, threads: 128, inject: p.Inject}
	nv, ne := 4000, 12000
	if p.Size == Paper {
		b.blocks, b.threads, nv, ne = 32, 256, 1<<18, 1<<20
	}
	b.g = randomGraph(newRand(p.Seed), nv, ne)
	off, adj := b.g.csr()
	b.off, b.adj = gpu.FromHost(d, "rowOffsets", off), gpu.FromHost(d, "adjacency", adj)
	dist := make([]int32, nv)
	for i := range dist {
		dist[i] = -1
	}
	dist[0] = 0
	b.dist = gpu.FromHost(d, "dist", dist)
	b.queues = [2]gpu.Buffer[int32]{gpu.Alloc[int32](d, "frontierEven", nv), gpu.Alloc[int32](d, "frontierOdd", nv)}
	counts := make([]int32, nv+1) // a vertex per level at least: at most nv levels, and the empty one
	counts[0] = 1                 // the frontier of level 0 holds vertex 0, at queue 0's slot 0
	b.counts = gpu.FromHost(d, "levelCounts", counts)
	return b
}

func (b *coopBFS) kernel(t *gpu.Thread) {
	for lvl := int32(0); b.level(t, lvl); lvl++ {
	}
}

// level expands the frontier of level lvl into the next and waits for the
// whole grid to finish it. It reports false, with nothing done, when the
// frontier is empty.
func (b *coopBFS) level(t *gpu.Thread, lvl int32) bool {
	n := int(b.counts.Load(t, int(lvl)))
	if n == 0 {
		return false
	}
	front, next := b.queues[lvl%2], b.queues[(lvl+1)%2]
	off, adj := b.off.ReadOnly(), b.adj.ReadOnly() // const int* __restrict__
	for i := t.GlobalID(); i < n; i += b.blocks * b.threads {
		u := int(front.Load(t, i))
		lo, hi := int(off.Load(t, u)), int(off.Load(t, u+1))
		for e := lo; e < hi; e++ {
			v := adj.Load(t, e)
			if slot := b.claim(t, v, lvl+1); slot >= 0 {
				next.Store(t, int(slot), v)
			}
		}
	}
	if b.inject != injNoGridSync {
		gpu.ThisGrid(t).Sync()
	}
	return true
}

// claim claims vertex v for level lvl if it is unvisited and returns the
// slot of that level's frontier it takes for v, or -1 if v was visited.
func (b *coopBFS) claim(t *gpu.Thread, v, lvl int32) int32 {
	if b.dist.AtomicCAS(t, int(v), -1, lvl, scope.Device) != -1 {
		return -1
	}
	s := scope.Device
	if b.inject == injBlockScopeQueue {
		s = scope.Block
	}
	return b.counts.AtomicAdd(t, int(lvl), 1, s)
}

func (b *coopBFS) check() error {
	return sameAll("BFS distances", b.dist.Host(), b.g.bfs(0))
}
