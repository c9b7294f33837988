package kernels

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// none marks a fence left out of the lock idiom.
const none = scope.Thread

// lockMicros are ScoR's lock microbenchmarks: stores to data inside (or
// outside) spin locks built from CAS, fences and exchange, with the lock's
// scope, its fences, or the lock itself wrong on one side.
func lockMicros() Catalog {
	dev, blk := scope.Device, scope.Block
	return Catalog{
		micro("race_interblock_blklock_waw",
			"B0 and B1 store data under a block-scope lock: it does not exclude the other block",
			interblock, kinds(kind.MissingDeviceFence, kind.ScopedAtomic),
			lockPair(lk{blk, blk, blk}, lk{blk, blk, blk}), dataIn(1, 2)),
		micro("race_interblock_lock-blkfence_waw",
			"B0 takes the device lock with a block fence after its CAS, which does not acquire a device lock; B1 uses the full idiom",
			interblock, kinds(kind.ImproperLocking),
			lockPair(lk{dev, blk, dev}, lk{dev, dev, dev}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interblock_lock-no-stf_waw",
			"B0 takes the device lock with no fence after its CAS; B1 uses the full idiom",
			interblock, kinds(kind.ImproperLocking),
			lockPair(lk{dev, none, dev}, lk{dev, dev, dev}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interblock_lock-no-tf_waw",
			"B0 and B1 release the device lock with no fence before the exchange",
			interblock, kinds(kind.MissingDeviceFence),
			lockPair(lk{dev, dev, none}, lk{dev, dev, none}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interblock_none-lock_rtraw",
			"B0 reads data under the device lock and then stores it after releasing; B1 reads it under the lock. "+
				"ScoR leaves the order to the scheduler; here B1 waits on a relaxed flag, set by B0 after its store "+
				"with no fence, so the race manifests on every run (the flag orders nothing)",
			interblock, kinds(kind.MissingDeviceFence, kind.ImproperLocking), writeAfterUnlock, dataIn(1)).
			withPrecise(whyVolatile),
		micro("race_interblock_none-lock_waw",
			"B0 stores data under the device lock, B1 with no lock",
			interblock, kinds(kind.ImproperLocking, kind.MissingDeviceFence),
			lockVsPlain(lk{dev, dev, dev}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_blklock-no-stf_waw",
			"T0 takes the block lock with no fence after its CAS; T32 uses the full block idiom",
			interwarp, kinds(kind.ImproperLocking),
			lockPair(lk{blk, none, blk}, lk{blk, blk, blk}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_blklock-no-tf_waw",
			"T0 and T32 release the block lock with no fence before the exchange",
			interwarp, kinds(kind.MissingBlockFence),
			lockPair(lk{blk, blk, none}, lk{blk, blk, none}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_dev-blklock-no-stf_waw",
			"T0 takes the lock at device scope with no fence after its CAS; T32 takes it at block scope with the full idiom",
			interwarp, kinds(kind.ImproperLocking),
			lockPair(lk{dev, none, dev}, lk{blk, blk, blk}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_dev-blklock-no-tf_waw",
			"T0 (device lock) and T32 (block lock) release with no fence before the exchange",
			interwarp, kinds(kind.MissingBlockFence),
			lockPair(lk{dev, dev, none}, lk{blk, blk, none}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_none-blklock_waw",
			"T0 stores data under a block lock (with device fences), T32 with no lock",
			interwarp, kinds(kind.ImproperLocking, kind.MissingBlockFence),
			lockVsPlain(lk{blk, dev, dev}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("race_interwarp_none-lock_waw",
			"T0 stores data under the device lock, T32 with no lock",
			interwarp, kinds(kind.ImproperLocking, kind.MissingBlockFence),
			lockVsPlain(lk{dev, dev, dev}), dataIn(1, 2)).
			withPrecise(whyVolatile),
		micro("norace_interblock_lock_waw",
			"B0 and B1 store data under the device lock, full idiom",
			interblock, nil, lockPair(lk{dev, dev, dev}, lk{dev, dev, dev}), dataIn(1, 2)),
		micro("norace_interwarp_blklock_waw",
			"T0 and T32, one block, store data under the block lock, full idiom",
			interwarp, nil, lockPair(lk{blk, blk, blk}, lk{blk, blk, blk}), dataIn(1, 2)),
		micro("norace_interwarp_dev-blklock_waw",
			"T0 takes the lock at device scope, T32 at block scope; both in one block, so the device lock's block identity matches",
			interwarp, nil, lockPair(lk{dev, dev, dev}, lk{blk, blk, blk}), dataIn(1, 2)),
		micro("norace_intrawarp_none-blklock-no-tf_waw",
			"one thread stores data under a block lock released with no fence, then stores again unlocked: program order",
			intrawarp, nil, lockThenStore(lk{blk, blk, none}), dataIn(2)),
		micro("norace_intrawarp_none-blklock_waw",
			"one thread stores data under a block lock, then stores again unlocked: program order",
			intrawarp, nil, lockThenStore(lk{blk, blk, blk}), dataIn(2)),
	}
}

// lk is one use of the lock idiom: the scope of the CAS and exchange, of
// the fence after the CAS (stf) and of the fence before the exchange (tf);
// a fence of scope none is left out.
type lk struct{ cas, stf, tf scope.Scope }

// store runs the idiom around a volatile store of x to data.
func (l lk) store(v *microVars, t *gpu.Thread, x uint32) {
	v.acquire(t, l.cas)
	fence(t, l.stf)
	v.data.StoreVolatile(t, 0, x)
	fence(t, l.tf)
	v.release(t, l.cas)
}

func fence(t *gpu.Thread, s scope.Scope) {
	if s != none {
		t.Fence(s)
	}
}

// lockPair: actor 0 stores 1 under a, actor 1 stores 2 under b.
func lockPair(a, b lk) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){
			func(t *gpu.Thread) { a.store(v, t, 1) },
			func(t *gpu.Thread) { b.store(v, t, 2) },
		}
	}
}

// lockVsPlain: actor 0 stores 1 under a, actor 1 stores 2 with no lock.
func lockVsPlain(a lk) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){
			func(t *gpu.Thread) { a.store(v, t, 1) },
			func(t *gpu.Thread) { v.data.StoreVolatile(t, 0, 2) },
		}
	}
}

// lockThenStore: one thread stores 1 under a, then 2 with no lock.
func lockThenStore(a lk) func(v *microVars) []func(t *gpu.Thread) {
	return func(v *microVars) []func(t *gpu.Thread) {
		return []func(t *gpu.Thread){func(t *gpu.Thread) {
			a.store(v, t, 1)
			v.data.StoreVolatile(t, 0, 2)
		}}
	}
}

func writeAfterUnlock(v *microVars) []func(t *gpu.Thread) {
	lockedRead := func(t *gpu.Thread) {
		v.acquire(t, scope.Device)
		t.ThreadFence()
		v.read(t)
		t.ThreadFence()
		v.release(t, scope.Device)
	}
	return []func(t *gpu.Thread){
		func(t *gpu.Thread) {
			lockedRead(t)
			v.data.StoreVolatile(t, 0, 1)
			v.turn.AtomicExch(t, 0, 1, scope.Device)
		},
		func(t *gpu.Thread) {
			for v.turn.AtomicAdd(t, 0, 0, scope.Device) == 0 {
			}
			lockedRead(t)
		},
	}
}
