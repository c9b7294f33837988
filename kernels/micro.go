package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// Micros returns ScoR's 32 microbenchmarks (ScoRD, ISCA'20):
// 18 racy and 14 race-free two- to four-thread kernels that exercise
// scoped fences, scoped atomics and inferred locks one idiom at a time.
// Each is named "micro/" and its ScoR file's name; a racy one has Racy set
// and Expect listing the kinds a detector may report for it (two when the
// kind depends on which thread runs first, as in iGUARD's verdicts).
//
// As in ScoR, `data` is accessed with volatile loads and stores (the
// kernels declare it volatile) except where a kernel uses atomics only;
// `flag` and `lock` only with atomics, of device scope unless the name says
// block; `dummy` is a sink for loaded values.
func Micros() Catalog {
	var c Catalog
	c = append(c, fenceMicros()...)
	c = append(c, atomicMicros()...)
	c = append(c, lockMicros()...)
	return c
}

// microVars are a microbenchmark's global variables.
type microVars struct {
	data, dummy gpu.Buffer[uint32]
	flag, lock  gpu.Buffer[int32]
	turn        gpu.Buffer[int32] // orders actors where a verdict needs it (see usesTurn)
}

// shape is a microbenchmark's launch shape and its actors: interblock
// kernels run B0T0 and B1T0 in 2 blocks of 1 thread; interwarp kernels T0
// and T32, two warps of one 33-thread block; intrawarp kernels one thread;
// the indirect kernels B0T0, B0T32, B1T0, B1T32 in 2 blocks of 33.
type shape uint8

const (
	interblock shape = iota
	interwarp
	intrawarp
	indirect
)

// dims returns the blocks of the grid and threads of a block.
func (s shape) dims() (blocks, threads int) {
	switch s {
	case interblock:
		return 2, 1
	case interwarp:
		return 1, 33
	case intrawarp:
		return 1, 1
	}
	return 2, 33
}

// actor returns which actor t is, in the order the shape lists them, or -1
// for an idle thread.
func (s shape) actor(t *gpu.Thread) int {
	_, threads := s.dims()
	switch r := t.ThreadRank(); {
	case threads == 1:
		return t.BlockRank()
	case r == 0:
		return 2 * t.BlockRank()
	case r == 32:
		return 2*t.BlockRank() + 1
	}
	return -1
}

// micro builds a catalog entry. body returns the code of each actor, by
// actor number; check, if not nil, verifies the final state.
func micro(name, doc string, s shape, expect []kind.Kind, body func(v *microVars) []func(t *gpu.Thread), check func(v *microVars) error) *Entry {
	blocks, threads := s.dims()
	return &Entry{
		Name: "micro/" + name, Doc: doc,
		Cooperative: blocks > 1,
		Racy:        len(expect) > 0, Expect: expect,
		Setup: func(d *gpu.Device, p Params) (*Run, error) {
			if p.Inject != "" {
				return nil, fmt.Errorf("kernels: micro/%s has no injections", name)
			}
			v := &microVars{
				data: gpu.Alloc[uint32](d, "data", 1), dummy: gpu.Alloc[uint32](d, "dummy", 1),
				flag: gpu.Alloc[int32](d, "flag", 1), lock: gpu.Alloc[int32](d, "lock", 1),
				turn: gpu.Alloc[int32](d, "turn", 1),
			}
			actors := body(v)
			cfg := gpu.LaunchConfig{Name: name, Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: threads}}
			return &Run{
				Launch: func(ctx context.Context, launch LaunchFunc) error {
					return launch(ctx, cfg, func(t *gpu.Thread) {
						if a := s.actor(t); a >= 0 && a < len(actors) {
							actors[a](t)
						}
					})
				},
				Check: func() error {
					if check == nil {
						return nil
					}
					return check(v)
				},
			}, nil
		},
	}
}

// The synchronization idioms the microbenchmarks are built from.

// waitExch is the consume-wait: swap 0 into flag until it was non-zero.
func (v *microVars) waitExch(t *gpu.Thread) {
	for v.flag.AtomicExch(t, 0, 0, scope.Device) == 0 {
	}
}

// waitFor is the poll-wait: spin until flag == k.
func (v *microVars) waitFor(t *gpu.Thread, k int32) {
	for v.flag.AtomicAdd(t, 0, 0, scope.Device) != k {
	}
}

// acquire spins on CAS(lock, 0→1) of scope s.
func (v *microVars) acquire(t *gpu.Thread, s scope.Scope) {
	for v.lock.AtomicCAS(t, 0, 0, 1, s) != 0 {
	}
}

// release swaps 0 into lock with scope s.
func (v *microVars) release(t *gpu.Thread, s scope.Scope) { v.lock.AtomicExch(t, 0, 0, s) }

// read is ScoR's `dummy = data[0]`: a volatile load and a plain store.
func (v *microVars) read(t *gpu.Thread) uint32 {
	x := v.data.LoadVolatile(t, 0)
	v.dummy.Store(t, 0, x)
	return x
}

// lockedStore runs the full lock idiom of scope s around a volatile store
// of x: acquire, fence(s), store, fence(s), release.
func (v *microVars) lockedStore(t *gpu.Thread, s scope.Scope, x uint32) {
	v.acquire(t, s)
	t.Fence(s)
	v.data.StoreVolatile(t, 0, x)
	t.Fence(s)
	v.release(t, s)
}

// dataIn returns a Check that data ends as one of want.
func dataIn(want ...uint32) func(v *microVars) error {
	return func(v *microVars) error {
		got := v.data.Host()[0]
		for _, w := range want {
			if got == w {
				return nil
			}
		}
		return fmt.Errorf("data = %d, want one of %v", got, want)
	}
}

// kinds lists expected race kinds.
func kinds(k ...kind.Kind) []kind.Kind { return k }
