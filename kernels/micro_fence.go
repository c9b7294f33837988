package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// fenceMicros are ScoR's fence microbenchmarks: message passing through a
// flag, published by a fence of some scope.
func fenceMicros() Catalog {
	return Catalog{
		micro("race_interblock_blkfence_raw",
			"B0 publishes data with a block fence and a flag; B1, in another block, reads it: the fence's scope is too narrow",
			interblock, kinds(kind.MissingDeviceFence), publish(scope.Block, true), nil).
			withPrecise(whyVolatile),
		micro("race_interblock_fence_rtraw",
			"B0 reads data, fences, sets the flag, and reads data again; B1 waits for the flag and writes data: B0's second read is unordered with the write",
			interblock, kinds(kind.MissingDeviceFence), readAfterRelease, nil).
			withPrecise(whyVolatile),
		micro("norace_interblock_fence_raw",
			"B0 publishes data with a device fence and a flag; B1 waits for the flag and reads data",
			interblock, nil, publish(scope.Device, false), readOne),
		micro("norace_interwarp_blkfence_raw",
			"T0 publishes data with a block fence and a flag; T32, in the same block, waits and reads it",
			interwarp, nil, publish(scope.Block, true), readOne),
		micro("norace_interwarp_fence_raw",
			"T0 publishes data with a device fence and a flag; T32 waits and reads it",
			interwarp, nil, publish(scope.Device, true), readOne),
		micro("norace_interwarp-block_fence_hrf-indirect",
			"four threads pass data along a chain: block fence inside B0, device fence from B0 to B1, block fence inside B1 (HRF-indirect)",
			indirect, nil, hrfIndirect, dataIn(5)),
	}
}

// publish is the producer-consumer pair: actor 0 stores data=1, fences
// with scope s and sets the flag; actor 1 waits on the flag and reads
// data, then, if echo, passes the value back through the flag.
func publish(s scope.Scope, echo bool) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){
			func(t *gpu.Thread) {
				v.data.StoreVolatile(t, 0, 1)
				t.Fence(s)
				v.flag.AtomicExch(t, 0, 1, scope.Device)
			},
			func(t *gpu.Thread) {
				v.waitExch(t)
				a := v.read(t)
				if echo {
					v.flag.AtomicExch(t, 0, int32(a), scope.Device)
				}
			},
		}
	}
}

// readOne checks that the consumer read the published 1.
func readOne(v *microVars) error {
	if got := v.dummy.Host()[0]; got != 1 {
		return fmt.Errorf("consumer read %d, want 1", got)
	}
	return nil
}

func readAfterRelease(v *microVars) []func(t *gpu.Thread) {
	return []func(t *gpu.Thread){
		func(t *gpu.Thread) {
			v.read(t)
			t.ThreadFence()
			v.flag.AtomicExch(t, 0, 1, scope.Device)
			v.read(t)
		},
		func(t *gpu.Thread) {
			v.waitExch(t)
			v.data.StoreVolatile(t, 0, 1)
		},
	}
}

func hrfIndirect(v *microVars) []func(t *gpu.Thread) {
	add2 := func(t *gpu.Thread) { v.data.StoreVolatile(t, 0, v.data.LoadVolatile(t, 0)+2) }
	return []func(t *gpu.Thread){
		func(t *gpu.Thread) {
			v.data.StoreVolatile(t, 0, 1)
			t.ThreadFenceBlock()
			v.flag.AtomicExch(t, 0, 1, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 1)
			add2(t)
			t.ThreadFence()
			v.flag.AtomicExch(t, 0, 2, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 2)
			add2(t)
			t.ThreadFenceBlock()
			v.flag.AtomicExch(t, 0, 3, scope.Device)
		},
		func(t *gpu.Thread) {
			v.waitFor(t, 3)
			v.read(t)
		},
	}
}
