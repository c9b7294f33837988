package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injLeaderOnlyFence = "leader-only-fence"
)

// IguardGridBarrier is a hand-written grid barrier, the kind CUB's GridBarrier
// and cuML's GridSync implement, used between the rounds of a stencil:
// each round, every thread sets next[i] = cur[i] + cur[i+blockDim], a
// value from the next block over, so blocks must wait for each other.
//
// The barrier: every thread executes a device fence, the block meets at
// __syncthreads, thread 0 adds its block's arrival to a device-scope
// counter and spins until all blocks of this round have arrived, fences,
// and the block meets again. The fence must be every thread's: a fence
// orders only the accesses of the thread that executes it, so a barrier
// whose fence only the leader executes (CUDA 11's sync_grids, cuML's
// GridSync: iGUARD Fig. 10, cuml#4157) leaves the other threads' writes
// unordered with the other blocks' reads. The blocks spin on each other,
// so the launch is cooperative. The fences are __threadfence(), fence.sc:
// every thread's fence precedes, in the fence.sc order, the fence each
// leader makes after seeing every block arrive, so the exact family finds
// the barrier clean, as PTX does (with fence.acq_rel fences it would not
// be: a fence releases only through a later strong write of its own
// thread).
func IguardGridBarrier() *Entry {
	return (&Entry{
		Name:        "iguard/grid-barrier",
		Doc:         "stencil rounds separated by a hand-written grid barrier (device fence by every thread, atomic arrival counter)",
		Cooperative: true,
		Injections: []Injection{
			{Name: injLeaderOnlyFence, Doc: "only thread 0 of each block fences before arriving (iGUARD Fig. 10)",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*gridBarrier).round),
				Precise: &Verdict{Why: whyCumulative}},
		},
		Setup: setupGridBarrier,
	})
}

type gridBarrier struct {
	stencil
	arrived gpu.Buffer[int32]
	inject  string
}

func setupGridBarrier(d *gpu.Device, p Params) (*Run, error) {
	g := &gridBarrier{stencil: newStencil(d, p.Seed, 4, 64, 4), inject: p.Inject}
	if p.Size == Paper {
		g.stencil = newStencil(d, p.Seed, 16, 1024, 10)
	}
	g.arrived = gpu.Alloc[int32](d, "arrived", 1)
	return &Run{Launch: single(coopCfg("grid-barrier", g.blocks, g.threads), g.kernel), Check: g.check}, nil
}

func (g *gridBarrier) kernel(t *gpu.Thread) {
	cur, next := g.a, g.b
	for r := range g.rounds {
		g.round(t, cur, next, r)
		cur, next = next, cur
	}
}

// round computes one stencil round, then waits at the grid barrier.
func (g *gridBarrier) round(t *gpu.Thread, cur, next gpu.Buffer[int32], r int) {
	i, n := t.GlobalID(), g.blocks*g.threads
	next.Store(t, i, cur.Load(t, i)+cur.Load(t, (i+g.threads)%n))
	g.sync(t, int32(r+1))
}

// sync is the grid barrier for the gen-th time.
func (g *gridBarrier) sync(t *gpu.Thread, gen int32) {
	leaderOnly := g.inject == injLeaderOnlyFence
	if !leaderOnly {
		t.ThreadFence()
	}
	t.SyncThreads()
	if t.ThreadRank() == 0 {
		if leaderOnly {
			t.ThreadFence()
		}
		g.arrived.AtomicAdd(t, 0, 1, scope.Device)
		for g.arrived.AtomicAdd(t, 0, 0, scope.Device) < gen*int32(g.blocks) {
		}
		t.ThreadFence()
	}
	t.SyncThreads()
}
