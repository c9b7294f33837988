package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// injWarpTail is the switch name of large/reduce's injection.
const injWarpTail = "warp-tail"

// largeReduce sums each block's 256 of 2^log2 int32s, one per thread, with
// the textbook shared-memory tree: every thread stores its element, and at
// each of eight steps the lower half of the active threads adds the upper
// half's partial sums into its own, with __syncthreads between steps;
// thread 0 stores the block's sum.
func largeReduce(log2 int) *Entry {
	n := 1 << log2
	return &Entry{
		Name: "large/reduce",
		Doc:  fmt.Sprintf("per-block sums of %d int32s: shared-memory tree reduction with __syncthreads between steps", n),
		Injections: []Injection{
			{Name: injWarpTail, Doc: "the last five steps, within warp 0, skip the barrier: warp-synchronous code with no __syncwarp",
				Expect: []kind.Kind{kind.MissingSyncwarp}, Where: where((*blockReduce).step), Corrupts: true},
		},
		Setup: func(d *gpu.Device, p Params) (*Run, error) { return setupBlockReduce(d, p, n) },
	}
}

type blockReduce struct {
	n       int
	in, out gpu.Buffer[int32]
	host    []int32
	inject  string
}

func setupBlockReduce(d *gpu.Device, p Params, n int) (*Run, error) {
	if err := warpSize32(d, "large/reduce"); err != nil {
		return nil, err
	}
	r := &blockReduce{n: n, inject: p.Inject}
	r.host = randInt32s(newRand(p.Seed), n, 1000)
	r.in, r.out = gpu.FromHost(d, "in", r.host), gpu.Alloc[int32](d, "out", n/largeBlock)
	return &Run{Launch: single(launchCfg("reduce", n/largeBlock, largeBlock), r.kernel), Check: r.check}, nil
}

func (r *blockReduce) kernel(t *gpu.Thread) {
	sums := gpu.Shared[int32](t, "sums", largeBlock)
	sums.Store(t, t.ThreadRank(), r.in.ReadOnly().Load(t, t.GlobalID()))
	t.SyncThreads()
	for half := largeBlock / 2; half > 0; half /= 2 {
		r.step(t, sums, half)
	}
	if t.ThreadRank() == 0 {
		r.out.Store(t, t.BlockRank(), sums.Load(t, 0))
	}
}

// step adds the partial sum half places up into each of the lower half's;
// the barrier after it is skipped, by the injection, once the active
// threads fit in one warp.
func (r *blockReduce) step(t *gpu.Thread, sums gpu.Buffer[int32], half int) {
	if i := t.ThreadRank(); i < half {
		sums.Store(t, i, sums.Load(t, i)+sums.Load(t, i+half))
	}
	if r.inject != injWarpTail || half > 32 {
		t.SyncThreads()
	}
}

func (r *blockReduce) check() error {
	want := make([]int32, r.n/largeBlock)
	for i, v := range r.host {
		want[i/largeBlock] += v
	}
	return sameAll("block sums", r.out.Host(), want)
}
