package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/race/kind"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injNoOffsetSync = "no-offset-sync"
)

// LibCompact is stable stream compaction (CUB's DeviceSelect::If): keep the
// elements that pass a predicate, in order. Three launches: each block
// counts its tile's kept elements with a block scan; one block scans the
// counts into tile offsets; each block scans its flags again and stores
// every kept element at its tile's offset plus its rank among the tile's
// kept elements. Thread 0 reads the tile's offset into shared memory for
// the block, behind a __syncthreads.
func LibCompact() *Entry {
	return &Entry{
		Name: "lib/compact",
		Doc:  "stable stream compaction: block-scan counts, one-block scan of offsets, block-scan scatter",
		Injections: []Injection{
			{Name: injNoOffsetSync, Doc: "no __syncthreads between thread 0's store of the tile offset in shared memory and the block's reads; threads that read a stale offset store over other tiles' elements",
				Expect: []kind.Kind{kind.MissingBlockFence, kind.MissingSyncwarp, kind.MissingDeviceFence}, Where: where((*compact).scatter), Corrupts: true},
		},
		Setup: setupCompact,
	}
}

type compact struct {
	n, blocks, threads int
	in, out            gpu.Buffer[int32]
	counts, offsets    gpu.Buffer[int32]
	inject             string
	host               []int32
}

func setupCompact(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "lib/compact"); err != nil {
		return nil, err
	}
	c := &compact{n: 10_000, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		c.n, c.threads = 1<<22, 256
	}
	c.blocks = ceilDiv(c.n, c.threads)
	c.host = randInt32s(newRand(p.Seed), c.n, 100)
	c.in, c.out = gpu.FromHost(d, "in", c.host), gpu.Alloc[int32](d, "out", c.n)
	c.counts, c.offsets = gpu.Alloc[int32](d, "tileCounts", c.blocks), gpu.Alloc[int32](d, "tileOffsets", c.blocks+1)
	return &Run{Launch: c.launch, Check: c.check}, nil
}

func (c *compact) launch(ctx context.Context, launch LaunchFunc) error {
	if err := launch(ctx, launchCfg("compact-count", c.blocks, c.threads), c.count); err != nil {
		return err
	}
	if err := launch(ctx, launchCfg("compact-offsets", 1, scanThreads), scanCounts(c.counts, c.offsets)); err != nil {
		return err
	}
	return launch(ctx, launchCfg("compact-scatter", c.blocks, c.threads), c.scatter)
}

// flag returns the thread's element and whether it is kept.
func (c *compact) flag(t *gpu.Thread) (v int32, kept int32) {
	if i := t.GlobalID(); i < c.n {
		if v = c.in.ReadOnly().Load(t, i); keep(v) { // const int* __restrict__ in
			return v, 1
		}
	}
	return v, 0
}

func (c *compact) count(t *gpu.Thread) {
	_, kept := c.flag(t)
	if total := block.Reduce(t, block.Temp[int32](t, "warpSums"), kept, gpu.Add[int32]); t.ThreadRank() == 0 {
		c.counts.Store(t, t.BlockRank(), total)
	}
}

// scatter stores the block's kept elements at their places.
func (c *compact) scatter(t *gpu.Thread) {
	v, kept := c.flag(t)
	rank, _ := block.ExclusiveScan(t, block.Temp[int32](t, "warpSums"), kept, 0, gpu.Add[int32])
	base := gpu.Shared[int32](t, "tileOffset", 1)
	if t.ThreadRank() == 0 {
		base.Store(t, 0, c.offsets.Load(t, t.BlockRank()))
	}
	if c.inject != injNoOffsetSync {
		t.SyncThreads()
	}
	if kept == 1 {
		c.out.Store(t, int(base.Load(t, 0)+rank), v)
	}
}

func (c *compact) check() error {
	var want []int32
	for _, v := range c.host {
		if keep(v) {
			want = append(want, v)
		}
	}
	if got := int(c.offsets.Host()[c.blocks]); got != len(want) {
		return fmt.Errorf("kept %d elements, want %d", got, len(want))
	}
	return sameAll("compacted", c.out.Host()[:len(want)], want)
}

// scanThreads is the block size of scanCounts.
const scanThreads = 256

// scanCounts returns a one-block kernel that stores the exclusive prefix
// sums of counts in offsets, and their total in offsets[len(counts)]. It
// scans scanThreads counts at a time, carrying each chunk's total.
func scanCounts(counts, offsets gpu.Buffer[int32]) gpu.Kernel {
	return func(t *gpu.Thread) {
		var carry int32
		for c0 := 0; c0 < counts.Len(); c0 += scanThreads {
			var v int32
			i := c0 + t.ThreadRank()
			if i < counts.Len() {
				v = counts.Load(t, i)
			}
			excl, total := block.ExclusiveScan(t, block.Temp[int32](t, "warpSums"), v, 0, gpu.Add[int32])
			if i < counts.Len() {
				offsets.Store(t, i, carry+excl)
			}
			carry += total
		}
		if t.ThreadRank() == 0 {
			offsets.Store(t, counts.Len(), carry)
		}
	}
}
