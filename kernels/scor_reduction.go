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
	injStage64NoFence   = "stage64-no-fence"
	injTicketBlockFence = "ticket-block-fence"
	// injTailNoSyncwarp is the format of the warp-tail injections, whose
	// number is the step left without its __syncwarp.
	injTailNoSyncwarp = "tail-no-syncwarp-%d"
)

// ScorReduction is ScoR's single-pass sum of n int32s, written from the
// description of the "threadfence reduction" idea rather than from any
// CUDA source.
//
// Each thread first sums a grid-strided slice of pairs. A block then folds
// its threads' sums in a tree without __syncthreads: at each level the
// upper half of the active threads publishes a partial sum into the block's
// slice of a global scratch array, with a block fence and a block-scope
// flag, and the lower half waits on the flag. The last 64 sums are folded
// by warp 0 alone, warp-synchronously, with a __syncwarp after every step:
// under independent thread scheduling its lanes are not in lockstep.
//
// Thread 0 stores the block's sum, executes a device fence and takes a
// ticket from a device-scope counter that wraps back to 0; the block that
// draws the last ticket reads every block's sum and folds them the same
// way.
func ScorReduction() *Entry {
	k := &Entry{
		Name: "scor/reduction",
		Doc:  "single-pass sum: flag-and-fence block tree, __syncwarp-ed warp tail, device-fenced last-block ticket",
		Injections: []Injection{
			{Name: injStage64NoFence, Doc: "threads 32-63 publish their sums with no block fence before the flag",
				Expect: []kind.Kind{kind.MissingBlockFence}, Where: where((*reduction).publish),
				Precise: &Verdict{Why: whyVolatile}},
			{Name: injTicketBlockFence, Doc: "the block's sum is published to the last block with only a block fence",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*reduction).retire)},
		},
		Setup: setupReduction,
	}
	for s := 16; s >= 1; s /= 2 {
		k.Injections = append(k.Injections, Injection{
			Name:     fmt.Sprintf(injTailNoSyncwarp, s),
			Doc:      fmt.Sprintf("no __syncwarp before the warp tail's step reading sdata[tid+%d] (ScoR's lockstep assumption)", s),
			Expect:   []kind.Kind{kind.MissingSyncwarp},
			Where:    where((*reduction).warpTail),
			Corrupts: true,
		})
	}
	return k
}

type reduction struct {
	n, blocks, threads int
	in                 gpu.Buffer[int32]
	sdata, flag        gpu.Buffer[int32] // per-thread scratch and publish flags, global as in ScoR
	partial, out       gpu.Buffer[int32]
	ticket             gpu.Buffer[uint32]
	inject             string
	tailGap            int // the warp-tail step whose __syncwarp is left out, or 0
	want               int32
}

func setupReduction(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "scor/reduction"); err != nil {
		return nil, err
	}
	r := &reduction{n: 1 << 15, blocks: 8, threads: 256, inject: p.Inject}
	if p.Size == Paper {
		r.n, r.blocks, r.threads = 1_000_000, 30, 512
	}
	fmt.Sscanf(p.Inject, injTailNoSyncwarp, &r.tailGap)
	host := randInt32s(newRand(p.Seed), r.n, 100)
	for _, v := range host {
		r.want += v
	}
	r.in = gpu.FromHost(d, "in", host)
	r.sdata = gpu.Alloc[int32](d, "sdata", r.blocks*r.threads)
	r.flag = gpu.Alloc[int32](d, "flag", r.blocks*r.threads)
	r.partial = gpu.Alloc[int32](d, "partial", r.blocks)
	r.out = gpu.Alloc[int32](d, "out", 1)
	r.ticket = gpu.Alloc[uint32](d, "ticket", 1)
	return &Run{Launch: single(launchCfg("reduction", r.blocks, r.threads), r.kernel), Check: r.check}, nil
}

func (r *reduction) kernel(t *gpu.Thread) {
	var sum int32
	stride := 2 * r.threads * r.blocks
	for i := t.BlockRank()*2*r.threads + t.ThreadRank(); i < r.n; i += stride {
		sum += r.in.Load(t, i)
		if j := i + r.threads; j < r.n {
			sum += r.in.Load(t, j)
		}
	}
	sum = r.reduceBlock(t, sum)
	if r.blocks == 1 {
		if t.ThreadRank() == 0 {
			r.out.Store(t, 0, sum)
		}
		return
	}
	if !r.retire(t, sum) {
		return
	}
	sum = 0
	for i := t.ThreadRank(); i < r.blocks; i += r.threads {
		sum += r.partial.Load(t, i)
	}
	if sum = r.reduceBlock(t, sum); t.ThreadRank() == 0 {
		r.out.Store(t, 0, sum)
	}
}

// reduceBlock returns, in thread 0, the sum of v over the block.
func (r *reduction) reduceBlock(t *gpu.Thread, v int32) int32 {
	tid, base := t.ThreadRank(), t.BlockRank()*r.threads
	r.sdata.StoreVolatile(t, base+tid, v)
	r.flag.Store(t, base+tid, 0)
	t.SyncThreads()
	for h := r.threads / 2; h >= 32; h /= 2 {
		if tid >= h {
			return v
		}
		if 2*h < r.threads { // sdata[tid+h] was published at the previous level
			for r.flag.AtomicAdd(t, base+tid+h, 0, scope.Block) != 1 {
			}
			t.ThreadFenceBlock()
		}
		v += r.sdata.LoadVolatile(t, base+tid+h)
		if h > 32 && tid >= h/2 {
			r.publish(t, base+tid, v)
			return v
		}
	}
	return r.warpTail(t, base, v)
}

// publish stores a partial sum for a thread of the lower half and raises
// its flag: the block fence orders the store before the flag.
func (r *reduction) publish(t *gpu.Thread, at int, v int32) {
	r.sdata.StoreVolatile(t, at, v)
	if !(r.inject == injStage64NoFence && t.ThreadRank() >= 32 && t.ThreadRank() < 64) {
		t.ThreadFenceBlock()
	}
	r.flag.AtomicExch(t, at, 1, scope.Block)
}

// warpTail folds sdata[base..base+32) into lane 0, halving the lanes that
// add at each step. The __syncwarp before each step orders the stores of
// the previous step before the lower lanes read them.
func (r *reduction) warpTail(t *gpu.Thread, base int, v int32) int32 {
	tid := t.ThreadRank()
	r.sdata.StoreVolatile(t, base+tid, v)
	for s := 16; s >= 1; s /= 2 {
		if s != r.tailGap {
			t.SyncWarp(gpu.FullMask)
		}
		if tid < s {
			v += r.sdata.LoadVolatile(t, base+tid+s)
			r.sdata.StoreVolatile(t, base+tid, v)
		}
	}
	return v
}

// retire publishes the block's sum (thread 0 stores it, fences at device
// scope and draws a ticket) and reports whether this block drew the last
// ticket and must fold every block's sum.
func (r *reduction) retire(t *gpu.Thread, sum int32) bool {
	last := gpu.Shared[int32](t, "amLast", 1)
	if t.ThreadRank() == 0 {
		r.partial.StoreVolatile(t, t.BlockRank(), sum)
		if r.inject == injTicketBlockFence {
			t.ThreadFenceBlock()
		} else {
			t.ThreadFence()
		}
		ticket := r.ticket.AtomicInc(t, 0, uint32(r.blocks-1), scope.Device)
		if ticket == uint32(r.blocks-1) {
			t.ThreadFence() // acquire: the other blocks' sums are visible
			last.Store(t, 0, 1)
		}
	}
	t.SyncThreads()
	return last.Load(t, 0) == 1
}

func (r *reduction) check() error {
	if got := r.out.Host()[0]; got != r.want {
		return fmt.Errorf("sum of %d ints = %d, want %d", r.n, got, r.want)
	}
	return nil
}
