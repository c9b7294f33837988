package race_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// A preciseCase is a hand-written kernel with the precise mode's verdict:
// the kinds it must report (nil: nothing), and words its evidence must
// hold.
type preciseCase struct {
	name          string
	blocks, block int
	expect        []race.Kind
	evidence      string
	kernel        func(d *gpu.Device) gpu.Kernel
}

// run runs c under the precise mode, under each executor and under a
// deterministic schedule, and checks its verdict. The runtime sequences
// each element's writes and strong reads with the mode's checks, so the
// verdict is exact, and must hold at once, on every executor.
func (c preciseCase) run(t *testing.T) {
	t.Helper()
	type launch struct {
		name string
		e    gpu.Executor
		det  bool
	}
	for _, l := range []launch{{"fibers", gpu.Fibers, false}, {"goroutines", gpu.Goroutines, false}, {"deterministic", gpu.Fibers, true}} {
		t.Run(l.name, func(t *testing.T) {
			if problems := c.once(t, l.e, l.det); len(problems) > 0 {
				t.Error(strings.Join(problems, "\n"))
			}
		})
	}
}

func (c preciseCase) once(t *testing.T, e gpu.Executor, deterministic bool) []string {
	det := race.New(race.Options{Precise: true, History: true})
	d := newDevice(t)
	cfg := gpu.LaunchConfig{Name: c.name, Grid: gpu.Dim3{X: c.blocks}, Block: gpu.Dim3{X: c.block},
		Cooperative: true, Deterministic: deterministic}
	require.NoError(t, racetest.LaunchFunc(d, det, e)(context.Background(), cfg, c.kernel(d)))
	return c.problems(det.Reports())
}

// problems returns what is wrong with reports rs of c.
func (c preciseCase) problems(rs []race.Report) []string {
	var out []string
	if c.expect == nil {
		for _, r := range rs {
			out = append(out, fmt.Sprintf("unexpected report:\n%v", r))
		}
		return out
	}
	if len(rs) == 0 {
		return []string{fmt.Sprintf("missed the race (want one of %v)", c.expect)}
	}
	for _, r := range rs {
		switch {
		case !slices.Contains(c.expect, r.Kind):
			out = append(out, fmt.Sprintf("kind %v not among %v:\n%v", r.Kind, c.expect, r))
		case !strings.Contains(r.Evidence, c.evidence):
			out = append(out, fmt.Sprintf("evidence lacks %q:\n%v", c.evidence, r))
		case r.Current.Site.IsZero() || r.Previous.Site.IsZero():
			out = append(out, fmt.Sprintf("report lacks a site:\n%v", r))
		}
	}
	return out
}

// spin waits until flag[0] is non-zero with volatile loads.
func spin(t *gpu.Thread, flag gpu.Buffer[uint32]) {
	for flag.LoadVolatile(t, 0) == 0 {
	}
}

// TestPreciseLostReaders: thread 0 reads A[0] plainly, then updates it
// atomically; thread 0 of another block updates it atomically too. The
// atomics are a morally strong pair, but the plain read races with the
// other block's atomic, whichever came first.
func TestPreciseLostReaders(t *testing.T) {
	t.Parallel()
	preciseCase{name: "lost-readers", blocks: 2, block: 1, expect: kinds(race.MissingDeviceFence),
		kernel: func(d *gpu.Device) gpu.Kernel {
			a := gpu.Alloc[int32](d, "A", 1)
			return func(t *gpu.Thread) {
				if t.BlockRank() == 0 {
					_ = a.Load(t, 0)
				}
				a.AtomicAdd(t, 0, 1, scope.Device)
			}
		}}.run(t)
}

// chain is the 3-hop message chain: block 0 writes x, fences at device
// scope and raises f1; block 1 waits for f1, fences at mid scope and
// raises f2; block 2 waits for f2, fences at device scope and reads x.
// The fences are fence.acq_rel, so only the flags carry the order.
func chain(mid scope.Scope) func(d *gpu.Device) gpu.Kernel {
	return func(d *gpu.Device) gpu.Kernel {
		x := gpu.Alloc[int32](d, "x", 1)
		f1 := gpu.Alloc[uint32](d, "f1", 1)
		f2 := gpu.Alloc[uint32](d, "f2", 1)
		out := gpu.Alloc[int32](d, "out", 1)
		return func(t *gpu.Thread) {
			switch t.BlockRank() {
			case 0:
				x.Store(t, 0, 7)
				t.FenceAcqRel(scope.Device)
				f1.StoreVolatile(t, 0, 1)
			case 1:
				spin(t, f1)
				t.FenceAcqRel(mid)
				f2.StoreVolatile(t, 0, 1)
			case 2:
				spin(t, f2)
				t.FenceAcqRel(scope.Device)
				out.Store(t, 0, x.Load(t, 0))
			}
		}
	}
}

// TestPreciseChain: the middle hop's block-scope fence does not cover
// block 0, so nothing orders x's write before block 2's read; with a
// device-scope middle hop the chain orders it.
func TestPreciseChain(t *testing.T) {
	t.Parallel()
	t.Run("block-middle", func(t *testing.T) {
		preciseCase{name: "chain-block", blocks: 3, block: 1, expect: kinds(race.MissingDeviceFence), kernel: chain(scope.Block)}.run(t)
	})
	t.Run("device-middle", func(t *testing.T) {
		preciseCase{name: "chain-device", blocks: 3, block: 1, kernel: chain(scope.Device)}.run(t)
	})
}

// flagPass: block 0 writes data, fences at device scope and raises a
// volatile flag; block 1 spins on the flag with volatile loads, fences
// at device scope if acquire is set, and reads the data.
func flagPass(acquire bool) func(d *gpu.Device) gpu.Kernel {
	return func(d *gpu.Device) gpu.Kernel {
		data := gpu.Alloc[int32](d, "data", 1)
		flag := gpu.Alloc[uint32](d, "flag", 1)
		out := gpu.Alloc[int32](d, "out", 1)
		return func(t *gpu.Thread) {
			if t.BlockRank() == 0 {
				data.Store(t, 0, 7)
				t.ThreadFence()
				flag.StoreVolatile(t, 0, 1)
				return
			}
			spin(t, flag)
			if acquire {
				t.ThreadFence()
			}
			out.Store(t, 0, data.Load(t, 0))
		}
	}
}

// TestPreciseMissingAcquire: a reader that polls with relaxed loads and
// never acquires is not ordered after the writer, however the writer
// fenced; the report says so.
func TestPreciseMissingAcquire(t *testing.T) {
	t.Parallel()
	preciseCase{name: "missing-acquire", blocks: 2, block: 1, expect: kinds(race.MissingDeviceFence),
		evidence: `The reader acquired nothing after reading global "flag"[0] at race/precise_test.go:`,
		kernel:   flagPass(false)}.run(t)
}

// TestPreciseVolatileFlag: a volatile flag with a device fence on each
// side is a release and an acquire pattern, and the flag's volatile
// accesses are a morally strong pair: no race, not even on the flag.
func TestPreciseVolatileFlag(t *testing.T) {
	t.Parallel()
	preciseCase{name: "volatile-flag", blocks: 2, block: 1, kernel: flagPass(true)}.run(t)
}

// TestPreciseCumulativity: block 0's threads write, __syncthreads, and
// only thread 0 fences and raises the flag; block 1 acquires it and reads
// what every thread of block 0 wrote. The barrier makes the leader's
// fence cumulative.
func TestPreciseCumulativity(t *testing.T) {
	t.Parallel()
	preciseCase{name: "cumulativity", blocks: 2, block: 64, kernel: func(d *gpu.Device) gpu.Kernel {
		data := gpu.Alloc[int32](d, "data", 64)
		flag := gpu.Alloc[uint32](d, "flag", 1)
		out := gpu.Alloc[int32](d, "out", 64)
		return func(t *gpu.Thread) {
			r := t.ThreadRank()
			if t.BlockRank() == 0 {
				data.Store(t, r, int32(r))
				t.SyncThreads()
				if r == 0 {
					t.ThreadFence()
					flag.AtomicStore(t, 0, 1, scope.Device)
				}
				return
			}
			if r == 0 {
				for flag.LoadAcquire(t, 0, scope.Device) == 0 {
				}
			}
			t.SyncThreads()
			out.Store(t, r, data.Load(t, r))
		}
	}}.run(t)
}

// TestPreciseGridBarrierAsPrinted: iGUARD's grid barrier with a
// leader-only fence and a waiter that spins on a volatile counter with no
// fence: a race, caused by the waiter's missing acquire.
func TestPreciseGridBarrierAsPrinted(t *testing.T) {
	t.Parallel()
	preciseCase{name: "grid-barrier-printed", blocks: 2, block: 32, expect: kinds(race.MissingDeviceFence),
		evidence: `acquired nothing after reading global "count"[0]`,
		kernel: func(d *gpu.Device) gpu.Kernel {
			data := gpu.Alloc[int32](d, "data", 64)
			count := gpu.Alloc[uint32](d, "count", 1)
			out := gpu.Alloc[int32](d, "out", 64)
			return func(t *gpu.Thread) {
				i := t.GlobalID()
				data.Store(t, i, int32(i))
				t.SyncThreads()
				if t.ThreadRank() == 0 {
					t.ThreadFence()
					count.AtomicAdd(t, 0, 1, scope.Device)
					for count.LoadVolatile(t, 0) < 2 {
					}
				}
				t.SyncThreads()
				out.Store(t, i, data.Load(t, (i+32)%64))
			}
		}}.run(t)
}

// TestPreciseGridBarrierFenced is the same barrier with the waiter's
// fence after its spin: the counter's release sequence carries both
// leaders' releases, and the fence acquires them.
func TestPreciseGridBarrierFenced(t *testing.T) {
	t.Parallel()
	preciseCase{name: "grid-barrier-fenced", blocks: 2, block: 32, kernel: func(d *gpu.Device) gpu.Kernel {
		data := gpu.Alloc[int32](d, "data", 64)
		count := gpu.Alloc[uint32](d, "count", 1)
		out := gpu.Alloc[int32](d, "out", 64)
		return func(t *gpu.Thread) {
			i := t.GlobalID()
			data.Store(t, i, int32(i))
			t.SyncThreads()
			if t.ThreadRank() == 0 {
				t.ThreadFence()
				count.AtomicAdd(t, 0, 1, scope.Device)
				for count.LoadVolatile(t, 0) < 2 {
				}
				t.ThreadFence()
			}
			t.SyncThreads()
			out.Store(t, i, data.Load(t, (i+32)%64))
		}
	}}.run(t)
}

// TestPreciseWarpIntrinsics: lanes write shared memory, meet in a
// __ballot_sync or a __shfl_sync, and read a neighbour's slot. The
// intrinsics exchange values and order no memory; __syncwarp orders.
func TestPreciseWarpIntrinsics(t *testing.T) {
	t.Parallel()
	meets := map[string]func(t *gpu.Thread){
		"ballot":   func(t *gpu.Thread) { gpu.BallotSync(t, gpu.FullMask, true) },
		"shfl":     func(t *gpu.Thread) { gpu.ShflSync(t, gpu.FullMask, int32(1), 0, 32) },
		"syncwarp": func(t *gpu.Thread) { t.SyncWarp(gpu.FullMask) },
	}
	for name, meet := range meets {
		t.Run(name, func(t *testing.T) {
			c := preciseCase{name: "warp-" + name, blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
				kernel: func(d *gpu.Device) gpu.Kernel {
					out := gpu.Alloc[int32](d, "out", 32)
					return func(t *gpu.Thread) {
						s := gpu.Shared[int32](t, "s", 32)
						l := t.Lane()
						s.Store(t, l, int32(l))
						meet(t)
						out.Store(t, l, s.Load(t, l^1))
					}
				}}
			if name == "syncwarp" {
				c.expect = nil
			}
			c.run(t)
		})
	}
}

// TestPreciseScopedAtomic: block-scope atomics of two blocks on one
// counter are not a morally strong pair.
func TestPreciseScopedAtomic(t *testing.T) {
	t.Parallel()
	preciseCase{name: "block-scope-atomics", blocks: 2, block: 1, expect: kinds(race.ScopedAtomic),
		evidence: "has block scope, which does not include",
		kernel: func(d *gpu.Device) gpu.Kernel {
			n := gpu.Alloc[int32](d, "n", 1)
			return func(t *gpu.Thread) { n.AtomicAdd(t, 0, 1, scope.Block) }
		}}.run(t)
}

// The Exact family, the default, judges a volatile flag with a device
// fence on each side as the release and acquire it is; the IGUARD family,
// which counts volatile stores as data as ScoR does, reports the flag.
func ExampleOptions_family() {
	for _, opt := range []race.Options{{Family: race.IGUARD}, {}} {
		d, _ := gpu.NewDevice(gpu.DeviceConfig{})
		data := gpu.Alloc[int32](d, "data", 1)
		flag := gpu.Alloc[uint32](d, "flag", 1)
		det := race.New(opt)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Cooperative: true, Deterministic: true, Observer: det}
		_ = d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.BlockRank() == 0 {
				data.Store(t, 0, 7)
				t.ThreadFence()
				flag.StoreVolatile(t, 0, 1)
				return
			}
			for flag.LoadVolatile(t, 0) == 0 {
			}
			t.ThreadFence()
			_ = data.Load(t, 0)
		})
		fmt.Printf("%v: %d races\n", opt.Family, len(det.Reports()))
	}
	// Output:
	// iguard: 1 races
	// exact: 0 races
}
