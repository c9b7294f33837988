package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeAdd  = "block-scope-add"
	injBlockScopeHead = "block-scope-head"
)

// ContentionHotBin counts values into a histogram in global memory with
// device-scope atomics and no privatization, on input where nine values
// in ten fall into one bin: every thread of the grid hammers that bin's
// word.
func ContentionHotBin() *Entry {
	return &Entry{
		Name: "contention/hot-bin",
		Doc:  "unprivatized histogram with device-scope atomics where 90% of the values hit one bin",
		Injections: []Injection{
			{Name: injBlockScopeAdd, Doc: "the bins are incremented with block-scope atomics",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*hotBin).kernel)},
		},
		Setup: setupHotBin,
	}
}

const hotBins = 16

type hotBin struct {
	n, blocks, threads int
	in                 gpu.Buffer[int32]
	bins               gpu.Buffer[uint32]
	inject             string
	host               []int32
}

func setupHotBin(d *gpu.Device, p Params) (*Run, error) {
	h := &hotBin{n: 16_384, blocks: 8, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		h.n, h.blocks, h.threads = 1<<20, 32, 256
	}
	r := newRand(p.Seed)
	h.host = make([]int32, h.n)
	for i := range h.host {
		if r.IntN(10) != 0 {
			h.host[i] = 7
		} else {
			h.host[i] = r.Int32N(hotBins)
		}
	}
	h.in, h.bins = gpu.FromHost(d, "in", h.host), gpu.Alloc[uint32](d, "bins", hotBins)
	return &Run{Launch: single(launchCfg("hot-bin", h.blocks, h.threads), h.kernel), Check: h.check}, nil
}

func (h *hotBin) kernel(t *gpu.Thread) {
	s := scope.Device
	if h.inject == injBlockScopeAdd {
		s = scope.Block
	}
	for i := t.GlobalID(); i < h.n; i += h.blocks * h.threads {
		h.bins.AtomicAdd(t, int(h.in.Load(t, i)), 1, s)
	}
}

func (h *hotBin) check() error {
	want := make([]uint32, hotBins)
	for _, v := range h.host {
		want[v]++
	}
	return sameAll("bins", h.bins.Host(), want)
}

// ContentionWorkQueue is a dynamic work queue: every thread takes items by adding
// one to a shared head with a device-scope atomic until the queue is
// empty, and squares each item it takes. The head is the hot word.
func ContentionWorkQueue() *Entry {
	return &Entry{
		Name: "contention/work-queue",
		Doc:  "threads take items off a shared queue head with device-scope atomicAdd",
		Injections: []Injection{
			{Name: injBlockScopeHead, Doc: "the head is advanced with block-scope atomics",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*workQueue).take)},
		},
		Setup: setupWorkQueue,
	}
}

type workQueue struct {
	n, blocks, threads int
	in, out, head      gpu.Buffer[int32]
	inject             string
	host               []int32
}

func setupWorkQueue(d *gpu.Device, p Params) (*Run, error) {
	q := &workQueue{n: 16_384, blocks: 8, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		q.n, q.blocks, q.threads = 1<<20, 32, 256
	}
	q.host = randInt32s(newRand(p.Seed), q.n, 1000)
	q.in, q.out = gpu.FromHost(d, "in", q.host), gpu.Alloc[int32](d, "out", q.n)
	q.head = gpu.Alloc[int32](d, "head", 1)
	return &Run{Launch: single(launchCfg("work-queue", q.blocks, q.threads), q.kernel), Check: q.check}, nil
}

func (q *workQueue) kernel(t *gpu.Thread) {
	for i := q.take(t); i < q.n; i = q.take(t) {
		v := q.in.Load(t, i)
		q.out.Store(t, i, v*v)
	}
}

// take returns the index of the next item.
func (q *workQueue) take(t *gpu.Thread) int {
	s := scope.Device
	if q.inject == injBlockScopeHead {
		s = scope.Block
	}
	return int(q.head.AtomicAdd(t, 0, 1, s))
}

func (q *workQueue) check() error {
	want := make([]int32, q.n)
	for i, v := range q.host {
		want[i] = v * v
	}
	return sameAll("out", q.out.Host(), want)
}
