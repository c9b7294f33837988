package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockSync = "block-sync"
)

// IguardReduceMultiBlock is the cooperative-groups multi-block reduction of the
// CUDA samples (reductionMultiBlockCG): every block reduces a grid-strided
// slice and thread 0 stores the block's sum; after grid.sync() block 0
// reduces the blocks' sums. grid.sync() orders every thread's accesses
// before it with every thread's after it, so the launch is cooperative.
// Syncing only the block there (cg::sync(block) for cg::sync(grid), the
// bug iGUARD found) leaves block 0 reading sums other blocks have not
// stored or fenced.
func IguardReduceMultiBlock() *Entry {
	return &Entry{
		Name:        "iguard/reduce-multiblock",
		Doc:         "multi-block reduction: per-block sums, grid.sync(), block 0 sums the sums",
		Cooperative: true,
		Injections: []Injection{
			{Name: injBlockSync, Doc: "the blocks sync only themselves where the whole grid must meet",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*reduceMB).kernel), Corrupts: true},
		},
		Setup: setupReduceMB,
	}
}

type reduceMB struct {
	n, blocks, threads  int
	in, partial, result gpu.Buffer[int32]
	inject              string
	want                int32
}

func setupReduceMB(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "iguard/reduce-multiblock"); err != nil {
		return nil, err
	}
	r := &reduceMB{n: 50_000, blocks: 8, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		r.n, r.blocks, r.threads = 1<<24, 16, 1024
	}
	host := randInt32s(newRand(p.Seed), r.n, 100)
	for _, v := range host {
		r.want += v
	}
	r.in = gpu.FromHost(d, "in", host)
	r.partial, r.result = gpu.Alloc[int32](d, "blockSums", r.blocks), gpu.Alloc[int32](d, "result", 1)
	return &Run{Launch: single(coopCfg("reduce-multiblock", r.blocks, r.threads), r.kernel), Check: r.check}, nil
}

func (r *reduceMB) kernel(t *gpu.Thread) {
	var sum int32
	for i := t.GlobalID(); i < r.n; i += r.blocks * r.threads {
		sum += r.in.Load(t, i)
	}
	if sum = r.blockSum(t, sum); t.ThreadRank() == 0 {
		r.partial.Store(t, t.BlockRank(), sum)
	}
	if r.inject == injBlockSync {
		gpu.ThisBlock(t).Sync()
	} else {
		gpu.ThisGrid(t).Sync()
	}
	if t.BlockRank() != 0 {
		return
	}
	sum = 0
	for b := t.ThreadRank(); b < r.blocks; b += r.threads {
		sum += r.partial.Load(t, b)
	}
	if sum = r.blockSum(t, sum); t.ThreadRank() == 0 {
		r.result.Store(t, 0, sum)
	}
}

// blockSum returns the block's sum of v in thread 0: warps reduce with
// shuffles, warp 0 reduces the warps' sums from shared memory.
func (r *reduceMB) blockSum(t *gpu.Thread, v int32) int32 {
	warps := t.Grid().Warps
	sums := gpu.Shared[int32](t, "warpSums", warps)
	v = gpu.ReduceAddSync(t, gpu.FullMask, v)
	if t.Lane() == 0 {
		sums.Store(t, t.Warp(), v)
	}
	gpu.ThisBlock(t).Sync()
	v = 0
	if t.ThreadRank() < warps {
		v = sums.Load(t, t.ThreadRank())
	}
	if t.Warp() == 0 {
		v = gpu.ReduceAddSync(t, gpu.FullMask, v)
	}
	gpu.ThisBlock(t).Sync() // the sums are read before a second call stores
	return v
}

func (r *reduceMB) check() error {
	if got := r.result.Host()[0]; got != r.want {
		return fmt.Errorf("sum of %d ints = %d, want %d", r.n, got, r.want)
	}
	return nil
}
