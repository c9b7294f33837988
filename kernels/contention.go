package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeFlag = "block-scope-flag"
	injNoFence        = "no-fence"
)

// Contention returns kernels in which many threads hit one word: the
// workloads whose metadata serializes an in-process detector, as
// conjugGMB's did iGUARD's (SOSP'21 §6.5, §7.3). Each is race-free, checks
// its output against a sequential reference, and has a race to inject.
func Contention() Catalog {
	return Catalog{ContentionFlagSpin(), ContentionSpinBarrier(), ContentionHotBin(), ContentionWorkQueue()}
}

// ContentionFlagSpin is conjugGMB's pattern: every thread of every block spins on one
// flag that thread 0 of block 0 raises once per round, after writing the
// round's value and a device fence; each thread sums the values it reads.
// Every block waits on block 0, so the launch is cooperative.
func ContentionFlagSpin() *Entry {
	return (&Entry{
		Name:        "contention/flag-spin",
		Doc:         "every thread spins on one flag a producer raises each round after a device fence (conjugGMB-like)",
		Cooperative: true,
		Injections: []Injection{
			{Name: injNoFence, Doc: "the producer raises the flag without a device fence after writing the value",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*flagSpin).kernel)},
			{Name: injBlockScopeFlag, Doc: "the producer raises the flag with a block-scope atomic",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*flagSpin).publish),
				Precise: &Verdict{Expect: []kind.Kind{kind.ScopedAtomic, kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp},
					Why: whySpinNoAcquire, Where: where((*flagSpin).kernel)}},
		},
		Setup: setupFlagSpin,
	}).withPrecise(whySpinNoAcquire, kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp)
}

type flagSpin struct {
	blocks, threads, rounds int
	flag                    gpu.Buffer[int32]
	value, out              gpu.Buffer[int32]
	inject                  string
}

func setupFlagSpin(d *gpu.Device, p Params) (*Run, error) {
	f := &flagSpin{blocks: 4, threads: 64, rounds: 8, inject: p.Inject}
	if p.Size == Paper {
		f.blocks, f.threads, f.rounds = 16, 256, 32
	}
	f.flag = gpu.Alloc[int32](d, "flag", 1)
	f.value = gpu.Alloc[int32](d, "value", f.rounds)
	f.out = gpu.Alloc[int32](d, "out", f.blocks*f.threads)
	return &Run{Launch: single(coopCfg("flag-spin", f.blocks, f.threads), f.kernel), Check: f.check}, nil
}

func roundValue(r int) int32 { return int32(3*r + 1) }

func (f *flagSpin) kernel(t *gpu.Thread) {
	producer := t.GlobalID() == 0
	var sum int32
	for r := range f.rounds {
		if producer {
			f.value.Store(t, r, roundValue(r))
			if f.inject != injNoFence {
				t.ThreadFence()
			}
			f.publish(t, int32(r+1))
		}
		for f.flag.AtomicLoad(t, 0, scope.Device) <= int32(r) {
		}
		sum += f.value.Load(t, r)
	}
	f.out.Store(t, t.GlobalID(), sum)
}

// publish raises the flag to round.
func (f *flagSpin) publish(t *gpu.Thread, round int32) {
	s := scope.Device
	if f.inject == injBlockScopeFlag {
		s = scope.Block
	}
	f.flag.AtomicExch(t, 0, round, s)
}

func (f *flagSpin) check() error {
	var sum int32
	for r := range f.rounds {
		sum += roundValue(r)
	}
	want := make([]int32, f.blocks*f.threads)
	for i := range want {
		want[i] = sum
	}
	return sameAll("out", f.out.Host(), want)
}

// ContentionSpinBarrier is a grid barrier at its most contended: every thread, not a
// leader per block, adds its arrival to one device-scope counter and spins
// on it, between rounds of a stencil that reads the next block's values.
// Each thread fences before arriving, so its write is ordered before the
// reads of the other blocks. The blocks wait on each other: cooperative.
func ContentionSpinBarrier() *Entry {
	return (&Entry{
		Name:        "contention/spin-barrier",
		Doc:         "stencil rounds between grid barriers where every thread arrives on and spins on one counter",
		Cooperative: true,
		Injections: []Injection{
			{Name: injNoFence, Doc: "threads arrive without a device fence after writing their value",
				Expect: []kind.Kind{kind.MissingDeviceFence}, Where: where((*spinBarrier).round)},
		},
		Setup: setupSpinBarrier,
	}).withPrecise(whySpinNoAcquire, kind.MissingDeviceFence)
}

type spinBarrier struct {
	stencil
	count  gpu.Buffer[int32]
	inject string
}

func setupSpinBarrier(d *gpu.Device, p Params) (*Run, error) {
	s := &spinBarrier{stencil: newStencil(d, p.Seed, 4, 64, 4), inject: p.Inject}
	if p.Size == Paper {
		s.stencil = newStencil(d, p.Seed, 16, 256, 8)
	}
	s.count = gpu.Alloc[int32](d, "count", 1)
	return &Run{Launch: single(coopCfg("spin-barrier", s.blocks, s.threads), s.kernel), Check: s.check}, nil
}

func (s *spinBarrier) kernel(t *gpu.Thread) {
	cur, next := s.a, s.b
	for r := range s.rounds {
		s.round(t, cur, next, r)
		cur, next = next, cur
	}
}

// round computes one stencil round and waits at the barrier.
func (s *spinBarrier) round(t *gpu.Thread, cur, next gpu.Buffer[int32], r int) {
	i, n := t.GlobalID(), s.blocks*s.threads
	next.Store(t, i, cur.Load(t, i)+cur.Load(t, (i+s.threads)%n))
	if s.inject != injNoFence {
		t.ThreadFence()
	}
	s.count.AtomicAdd(t, 0, 1, scope.Device)
	for s.count.AtomicLoad(t, 0, scope.Device) < int32((r+1)*n) {
	}
}
