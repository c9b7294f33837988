package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/block"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeStatus = "block-scope-status"
	injUnfencedValue    = "unfenced-value"
)

// LibScan is a single-pass exclusive prefix sum of int32s with decoupled
// look-back (Merrill and Garland, 2016), the algorithm of CUB's
// DeviceScan.
//
// Each block takes the next tile from an atomic ticket, sums its
// threads' items and scans them within the block. Thread 0 then publishes
// the tile's aggregate in the tile's status word — status and value packed
// in one 64-bit word, written with a device-scope exchange, so no fence is
// needed to publish the value with its flag — and looks back over the
// predecessors' words, adding aggregates until it finds an inclusive
// prefix; it publishes its own inclusive prefix and hands the exclusive
// one to the block through shared memory.
//
// A tile waits only on tiles of lower ticket, which belong to blocks that
// started earlier and so are running or done: the kernel needs no
// cooperative launch, only that a started block runs to completion, as on
// CUDA. (Indexing tiles by blockIdx instead would need in-order block
// scheduling, which CUDA does not promise.)
func LibScan() *Entry {
	return &Entry{
		Name: "lib/scan",
		Doc:  "single-pass exclusive scan with decoupled look-back over device-scope packed status words",
		Injections: []Injection{
			{Name: injBlockScopeStatus, Doc: "tiles publish their status words with a block-scope exchange",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*scan).publish)},
			{Name: injUnfencedValue, Doc: "the value moves to its own array, stored before the status flag with no fence between",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*scan).publish),
				Precise: &Verdict{Why: whyVolatile}},
		},
		Setup: setupScan,
	}
}

// The tile status of decoupled look-back.
const (
	statusAggregate = 1 // the value is the tile's own sum
	statusPrefix    = 2 // the value is the sum of the tile and all before it
)

const scanItems = 4 // items per thread

type scan struct {
	n, blocks, threads int
	in, out, values    gpu.Buffer[int32]
	status             gpu.Buffer[uint64]
	ticket             gpu.Buffer[int32]
	inject             string
	host               []int32
}

func setupScan(d *gpu.Device, p Params) (*Run, error) {
	if err := warpSize32(d, "lib/scan"); err != nil {
		return nil, err
	}
	s := &scan{n: 16_000, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		s.n, s.threads = 4_000_000, 256
	}
	s.blocks = ceilDiv(s.n, s.threads*scanItems)
	s.host = randInt32s(newRand(p.Seed), s.n, 100)
	s.in, s.out = gpu.FromHost(d, "in", s.host), gpu.Alloc[int32](d, "out", s.n)
	s.status = gpu.Alloc[uint64](d, "tileStatus", s.blocks)
	s.values = gpu.Alloc[int32](d, "tileValues", 2*s.blocks)
	s.ticket = gpu.Alloc[int32](d, "ticket", 1)
	return &Run{Launch: single(launchCfg("scan", s.blocks, s.threads), s.kernel), Check: s.check}, nil
}

func (s *scan) kernel(t *gpu.Thread) {
	sh := gpu.Shared[int32](t, "tile", 2)
	if t.ThreadRank() == 0 {
		sh.Store(t, 0, s.ticket.AtomicAdd(t, 0, 1, scope.Device))
	}
	t.SyncThreads()
	tile := int(sh.Load(t, 0))
	first := (tile*s.threads + t.ThreadRank()) * scanItems
	var items [scanItems]int32
	var sum int32
	for k := range items {
		if i := first + k; i < s.n {
			items[k] = s.in.ReadOnly().Load(t, i) // const int* __restrict__ in
			sum += items[k]
		}
	}
	excl, total := block.ExclusiveScan(t, block.Temp[int32](t, "warpSums"), sum, 0, gpu.Add[int32])
	if t.ThreadRank() == 0 {
		sh.Store(t, 1, s.lookBack(t, tile, total))
	}
	t.SyncThreads()
	prefix := sh.Load(t, 1) + excl
	for k, v := range items {
		if i := first + k; i < s.n {
			s.out.Store(t, i, prefix)
			prefix += v
		}
	}
}

// lookBack publishes the tile's aggregate, finds the sum of every tile
// before it, publishes the tile's inclusive prefix and returns the
// exclusive one.
func (s *scan) lookBack(t *gpu.Thread, tile int, total int32) int32 {
	if tile == 0 {
		s.publish(t, tile, statusPrefix, total)
		return 0
	}
	s.publish(t, tile, statusAggregate, total)
	var prefix int32
	for j := tile - 1; ; j-- {
		st, v := s.wait(t, j)
		prefix += v
		if st == statusPrefix {
			break
		}
	}
	s.publish(t, tile, statusPrefix, prefix+total)
	return prefix
}

// publish sets tile's status word.
func (s *scan) publish(t *gpu.Thread, tile int, status uint64, v int32) {
	word := status<<32 | uint64(uint32(v))
	sc := scope.Device
	switch s.inject {
	case injBlockScopeStatus:
		sc = scope.Block
	case injUnfencedValue:
		s.values.StoreVolatile(t, valueSlot(tile, status), v)
		word = status << 32
	}
	s.status.AtomicExch(t, tile, word, sc)
}

// wait spins until tile j has published, and returns its status and value.
func (s *scan) wait(t *gpu.Thread, j int) (uint64, int32) {
	for {
		w := s.status.AtomicAdd(t, j, 0, scope.Device)
		if st := w >> 32; st != 0 {
			if s.inject == injUnfencedValue {
				return st, s.values.LoadVolatile(t, valueSlot(j, st))
			}
			return st, int32(uint32(w))
		}
	}
}

// valueSlot is where the unfenced-value injection keeps tile's value of
// the given status: aggregate and prefix apart, as CUB's tile descriptors
// keep them, since a tile's prefix follows its aggregate.
func valueSlot(tile int, status uint64) int { return 2*tile + int(status) - 1 }

func (s *scan) check() error {
	want := make([]int32, s.n)
	var sum int32
	for i, v := range s.host {
		want[i] = sum
		sum += v
	}
	return sameAll(fmt.Sprintf("exclusive scan of %d ints", s.n), s.out.Host(), want)
}
