package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeAppend = "block-scope-append"
	injWeakVisitedCheck = "weak-visited-check"
)

// LibBFS computes breadth-first distances from vertex 0, one launch per level
// over the current frontier, as Gunrock and SHoC's BFS do.
//
// A thread takes a frontier vertex and, for each neighbour, claims it with
// a device-scope CAS of its distance from -1 to level+1; the winner
// appends it to the next frontier through a device-scope atomic counter.
// Only the CAS reads a distance while others may write it. The host swaps
// the frontiers between launches.
func LibBFS() *Entry {
	return &Entry{
		Name: "lib/bfs",
		Doc:  "level-synchronous frontier BFS: device-scope CAS claims, atomic frontier append",
		Injections: []Injection{
			{Name: injWeakVisitedCheck, Doc: "a weak load checks whether a neighbour is visited before the CAS",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*bfs).visit)},
			{Name: injBlockScopeAppend, Doc: "the next frontier's counter is advanced with block-scope atomics",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*bfs).visit)},
		},
		Setup: setupBFS,
	}
}

type bfs struct {
	g                   graph
	blocks, threads     int
	off, adj, dist      gpu.Buffer[int32]
	front, next, counts gpu.Buffer[int32]
	inject              string
}

func setupBFS(d *gpu.Device, p Params) (*Run, error) {
	b := &bfs{blocks: 8, threads: 128, inject: p.Inject}
	nv, ne := 5000, 15000
	if p.Size == Paper {
		b.blocks, b.threads, nv, ne = 64, 256, 1_000_000, 4_000_000
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
	b.front, b.next = gpu.Alloc[int32](d, "frontier", nv), gpu.Alloc[int32](d, "nextFrontier", nv)
	b.counts = gpu.Alloc[int32](d, "nextCount", 1)
	return &Run{Launch: b.launch, Check: b.check}, nil
}

func (b *bfs) launch(ctx context.Context, launch LaunchFunc) error {
	size := 1 // the frontier holds vertex 0
	for level := int32(0); size > 0; level++ {
		front, next, n := b.front, b.next, size
		k := func(t *gpu.Thread) { b.expand(t, front, next, n, level) }
		if err := launch(ctx, launchCfg(fmt.Sprintf("bfs-level%d", level), b.blocks, b.threads), k); err != nil {
			return err
		}
		size = int(b.counts.Host()[0])
		b.counts.Fill(0)
		b.front, b.next = b.next, b.front
	}
	return nil
}

// expand visits the neighbours of the frontier's vertices.
func (b *bfs) expand(t *gpu.Thread, front, next gpu.Buffer[int32], n int, level int32) {
	off, adj := b.off.ReadOnly(), b.adj.ReadOnly() // const int* __restrict__
	for i := t.GlobalID(); i < n; i += b.blocks * b.threads {
		u := front.Load(t, i)
		for e := off.Load(t, int(u)); e < off.Load(t, int(u)+1); e++ {
			b.visit(t, next, int(adj.Load(t, int(e))), level+1)
		}
	}
}

// visit claims v for the next level if it is unvisited.
func (b *bfs) visit(t *gpu.Thread, next gpu.Buffer[int32], v int, level int32) {
	if b.inject == injWeakVisitedCheck && b.dist.Load(t, v) >= 0 {
		return
	}
	if b.dist.AtomicCAS(t, v, -1, level, scope.Device) != -1 {
		return
	}
	s := scope.Device
	if b.inject == injBlockScopeAppend {
		s = scope.Block
	}
	next.Store(t, int(b.counts.AtomicAdd(t, 0, 1, s)), int32(v))
}

func (b *bfs) check() error {
	return sameAll("BFS distances", b.dist.Host(), b.g.bfs(0))
}
