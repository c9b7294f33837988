package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeTotal = "block-scope-total"
	injNoBlockSync     = "no-block-sync"
)

// LibReduce is a device-wide sum of int32s, the shape CUB's DeviceReduce and
// every tutorial use: each thread sums a grid-strided slice, each warp
// folds its lanes' sums with shuffles, warp 0 folds the warps' sums from
// shared memory after __syncthreads, and thread 0 of each block adds the
// block's sum into the total with a device-scope atomic. Nothing waits on
// another block.
//
// The block reduction is written out rather than a call of block.Reduce:
// the no-block-sync injection removes the barrier inside it.
func LibReduce() *Entry {
	return &Entry{
		Name: "lib/reduce",
		Doc:  "device-wide sum: grid-stride loads, shuffle warp reduction, shared-memory block reduction, device atomic total",
		Injections: []Injection{
			{Name: injBlockScopeTotal, Doc: "blocks add into the total with a block-scope atomic",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*reduce).addTotal)},
			{Name: injNoBlockSync, Doc: "warp 0 reads the warps' sums without the __syncthreads after they are stored",
				Expect: []kind.Kind{kind.MissingBlockFence}, Where: where((*reduce).blockSum), Corrupts: true},
		},
		Setup: setupReduce,
	}
}

type reduce struct {
	n, blocks, threads int
	in, total          gpu.Buffer[int32]
	inject             string
	want               int32
}

func setupReduce(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "lib/reduce"); err != nil {
		return nil, err
	}
	r := &reduce{n: 100_000, blocks: 8, threads: 256, inject: p.Inject}
	if p.Size == Paper {
		r.n, r.blocks = 10_000_000, 64
	}
	host := randInt32s(newRand(p.Seed), r.n, 100)
	for _, v := range host {
		r.want += v
	}
	r.in, r.total = gpu.FromHost(d, "in", host), gpu.Alloc[int32](d, "total", 1)
	return &Run{Launch: single(launchCfg("reduce", r.blocks, r.threads), r.kernel), Check: r.check}, nil
}

func (r *reduce) kernel(t *gpu.Thread) {
	var sum int32
	in := r.in.ReadOnly() // const int* __restrict__ in
	for i := t.GlobalID(); i < r.n; i += r.blocks * r.threads {
		sum += in.Load(t, i)
	}
	sum = gpu.ReduceAddSync(t, gpu.FullMask, sum)
	if sum = r.blockSum(t, sum); t.ThreadRank() == 0 {
		r.addTotal(t, sum)
	}
}

// blockSum returns, in thread 0, the sum of the warps' sums: lane 0 of
// each warp stores its warp's in shared memory, and warp 0 folds them.
func (r *reduce) blockSum(t *gpu.Thread, warpSum int32) int32 {
	warps := ceilDiv(r.threads, 32)
	sums := gpu.Shared[int32](t, "warpSums", warps)
	if t.Lane() == 0 {
		sums.Store(t, t.Warp(), warpSum)
	}
	if r.inject != injNoBlockSync {
		t.SyncThreads()
	}
	if t.Warp() != 0 {
		return 0
	}
	var v int32
	if t.Lane() < warps {
		v = sums.Load(t, t.Lane())
	}
	return gpu.ReduceAddSync(t, gpu.FullMask, v)
}

// addTotal adds a block's sum into the total.
func (r *reduce) addTotal(t *gpu.Thread, sum int32) {
	s := scope.Device
	if r.inject == injBlockScopeTotal {
		s = scope.Block
	}
	r.total.AtomicAdd(t, 0, sum, s)
}

func (r *reduce) check() error {
	if got := r.total.Host()[0]; got != r.want {
		return fmt.Errorf("sum of %d ints = %d, want %d", r.n, got, r.want)
	}
	return nil
}
