package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// atomicMicros are ScoR's atomics microbenchmarks: two threads update data
// with atomics of some scope, or one with an atomic and one with a plain
// (volatile) store.
func atomicMicros() Catalog {
	return Catalog{
		micro("race_interblock_blkatom",
			"B0 and B1 exchange data with block-scope atomics: neither scope includes the other block",
			interblock, kinds(kind.ScopedAtomic), exchPair(scope.Block, scope.Block), dataIn(1, 2)),
		micro("race_interblock_none-atom_waw",
			"B0 exchanges data with a device atomic, B1 stores it with a volatile store",
			interblock, kinds(kind.MissingDeviceFence), exchStore(scope.Device), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_none-atom_waw",
			"T0 exchanges data with a device atomic, T32 stores it with a volatile store",
			interwarp, kinds(kind.MissingBlockFence), exchStore(scope.Device), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_none-blkatom_waw",
			"T0 exchanges data with a block atomic, T32 stores it with a volatile store",
			interwarp, kinds(kind.MissingBlockFence), exchStore(scope.Block), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("norace_interblock_atom",
			"B0 and B1 exchange data with device atomics",
			interblock, nil, exchPair(scope.Device, scope.Device), dataIn(1, 2)),
		micro("norace_interwarp_blkatom",
			"T0 and T32, one block, exchange data with block atomics",
			interwarp, nil, exchPair(scope.Block, scope.Block), dataIn(1, 2)),
		micro("norace_interwarp_dev-blkatom",
			"T0 exchanges data with a device atomic and T32 with a block atomic: both scopes include both threads",
			interwarp, nil, exchPair(scope.Device, scope.Block), dataIn(1, 2)),
		micro("norace_intrawarp_none-blkatom",
			"one thread exchanges data with a block atomic, then stores it: program order",
			intrawarp, nil, func(v *microVars) []func(t *gpu.Thread) {
				return []func(t *gpu.Thread){func(t *gpu.Thread) {
					v.data.AtomicExch(t, 0, 1, scope.Block)
					v.data.StoreVolatile(t, 0, 2)
				}}
			}, dataIn(2)),
		micro("norace_interwarp-block_fence-atom_hrd-indirect",
			"block-scope atomics on data from two blocks, ordered by a chain of flags and fences through device-scope atomics (HRD-indirect)",
			indirect, nil, hrdIndirect, dataIn(3)).
			withPrecise(whyPollNoAcquire, kind.ScopedAtomic),
	}
}

// exchPair: actor 0 exchanges data=1 with scope a, actor 1 data=2 with b.
func exchPair(a, b scope.Scope) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){
			func(t *gpu.Thread) { v.data.AtomicExch(t, 0, 1, a) },
			func(t *gpu.Thread) { v.data.AtomicExch(t, 0, 2, b) },
		}
	}
}

// exchStore: actor 0 exchanges data=1 with scope s, actor 1 stores 2.
func exchStore(s scope.Scope) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){
			func(t *gpu.Thread) { v.data.AtomicExch(t, 0, 1, s) },
			func(t *gpu.Thread) { v.data.StoreVolatile(t, 0, 2) },
		}
	}
}

func hrdIndirect(v *microVars) []func(t *gpu.Thread) {
	return []func(t *gpu.Thread){
		func(t *gpu.Thread) {
			v.data.AtomicExch(t, 0, 1, scope.Block)
			t.ThreadFenceBlock()
			v.flag.AtomicExch(t, 0, 1, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 1)
			v.data.AtomicExch(t, 0, 2, scope.Device)
			t.ThreadFence()
			v.flag.AtomicExch(t, 0, 2, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 2)
			v.data.AtomicExch(t, 0, 3, scope.Block)
			t.ThreadFenceBlock()
			v.flag.AtomicExch(t, 0, 3, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 3)
			v.data.AtomicExch(t, 0, 3, scope.Device)
		},
	}
}
