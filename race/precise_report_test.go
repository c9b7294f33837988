package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

// neighbour is a kernel whose threads write their slot and read the
// next thread's with no barrier: the missing __syncthreads of a tiled
// kernel.
func neighbour(d *gpu.Device) gpu.Kernel {
	x := gpu.Alloc[int32](d, "x", 64)
	return func(t *gpu.Thread) {
		i := t.GlobalID()
		x.Store(t, i, 1)
		t.ThreadFenceBlock() // the fence a newcomer adds: it orders no other thread
		x.Load(t, (i+1)%64)
	}
}

// TestPreciseEvidenceNamesTheFix: each report's evidence says which
// synchronization would order the pair, in CUDA's words, for the
// threads' places: __syncwarp for lanes, __syncthreads for threads of a
// block (and why a block fence does not do), a device fence and an
// acquired flag across blocks, a wider scope for two atomics, an acquire
// for a flag read without one.
func TestPreciseEvidenceNamesTheFix(t *testing.T) {
	t.Parallel()
	cases := []preciseCase{
		{name: "lanes", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
			evidence: "put a __syncwarp (SyncWarp with both lanes in its mask) or a __syncthreads", kernel: neighbour},
		{name: "block", blocks: 1, block: 64, expect: kinds(race.MissingBlockFence),
			evidence: "put a __syncthreads (SyncThreads) both pass between the accesses. A __threadfence_block alone orders another thread only if",
			kernel: func(d *gpu.Device) gpu.Kernel {
				x := gpu.Alloc[int32](d, "x", 1)
				return func(t *gpu.Thread) {
					switch t.ThreadRank() {
					case 0:
						x.Store(t, 0, 1)
						t.FenceAcqRel(scope.Block)
					case 32:
						t.FenceAcqRel(scope.Block)
						x.Load(t, 0)
					}
				}
			}},
		{name: "blocks", blocks: 2, block: 1, expect: kinds(race.MissingDeviceFence),
			evidence: "__threadfence() then a strong write of a flag", kernel: func(d *gpu.Device) gpu.Kernel {
				x := gpu.Alloc[int32](d, "x", 1)
				return func(t *gpu.Thread) {
					if t.BlockRank() == 0 {
						x.Store(t, 0, 1)
						return
					}
					x.Load(t, 0)
				}
			}},
		{name: "scope", blocks: 2, block: 1, expect: kinds(race.ScopedAtomic),
			evidence: "Give it device scope or wider", kernel: func(d *gpu.Device) gpu.Kernel {
				x := gpu.Alloc[int32](d, "x", 1)
				return func(t *gpu.Thread) { x.AtomicAdd(t, 0, 1, scope.Block) }
			}},
		{name: "acquire", blocks: 2, block: 1, expect: kinds(race.MissingDeviceFence),
			evidence: "Read the flag with an acquire load of device scope (LoadAcquire), or put a fence of device scope after the read (__threadfence())",
			kernel:   flagPass(false)},
		// The CUDA Programming Guide's __threadfence() example resets its
		// counter with a plain store after the last atomicInc: PTX orders
		// it through that read, the model does not, and the evidence says
		// so and names the reset that is right under both.
		{name: "observed reset", blocks: 4, block: 1, expect: kinds(race.MissingDeviceFence),
			evidence: "PTX orders the pair through that read (its observation order), which warpguard's model leaves out: make this access strong instead, AtomicExch or AtomicStore of device scope or StoreVolatile",
			kernel: func(d *gpu.Device) gpu.Kernel {
				count := gpu.Alloc[uint32](d, "count", 1)
				return func(t *gpu.Thread) {
					t.ThreadFence()
					if count.AtomicInc(t, 0, 100, scope.Device) == 3 {
						count.Store(t, 0, 0)
					}
				}
			}},
		// One statement run by two threads: no barrier comes between its
		// runs, so the evidence names an atomic update, or the statement
		// split around a barrier, not a barrier "between the accesses".
		{name: "one statement", blocks: 1, block: 64, expect: kinds(race.MissingSyncwarp, race.MissingBlockFence),
			evidence: "make the update one atomic of block scope (AtomicAdd, AtomicExch or AtomicCAS)",
			kernel: func(d *gpu.Device) gpu.Kernel {
				count := gpu.Alloc[int32](d, "count", 1)
				return func(t *gpu.Thread) { count.Store(t, 0, count.Load(t, 0)+1) }
			}},
		{name: "lanes' volatile stores", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
			evidence: "make it an atomic store (AtomicExch or AtomicStore of block scope)",
			kernel: func(d *gpu.Device) gpu.Kernel {
				changed := gpu.Alloc[int32](d, "changed", 1)
				return func(t *gpu.Thread) { changed.StoreVolatile(t, 0, 1) }
			}},
		{name: "warp-synchronous reduction", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
			evidence: "split it, reading into a register, then __syncwarp, then writing, then __syncwarp",
			kernel: func(d *gpu.Device) gpu.Kernel {
				s := gpu.Alloc[int32](d, "s", 32)
				return func(t *gpu.Thread) {
					i := t.Lane()
					s.StoreVolatile(t, i, 1)
					t.SyncWarp(gpu.FullMask)
					for off := 16; off > 0; off /= 2 {
						if i < off {
							s.StoreVolatile(t, i, s.LoadVolatile(t, i)+s.LoadVolatile(t, i+off))
						}
					}
				}
			}},
		{name: "lanes' volatile flag", blocks: 1, block: 32, expect: kinds(race.MissingSyncwarp),
			evidence: "make the flag's accesses atomic (AtomicStore and AtomicLoad, or StoreRelease and LoadAcquire)",
			kernel: func(d *gpu.Device) gpu.Kernel {
				x, flag := gpu.Alloc[int32](d, "x", 1), gpu.Alloc[uint32](d, "flag", 1)
				return func(t *gpu.Thread) {
					switch t.Lane() {
					case 0:
						x.Store(t, 0, 1)
						t.ThreadFence()
						flag.StoreVolatile(t, 0, 1)
					case 1:
						spin(t, flag)
						t.ThreadFence()
						x.Load(t, 0)
					}
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t) })
	}
}

// TestIGUARDEvidenceNamesTheFix: the IGUARD family's evidence also ends
// with the synchronization that would order the pair.
func TestIGUARDEvidenceNamesTheFix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		blocks, block int
		want          string
	}{
		{1, 32, "put a __syncwarp with both lanes in its mask"},
		{1, 64, "put a __syncthreads both threads pass"},
		{2, 1, "put a __threadfence() after the write"},
	} {
		d := newDevice(t)
		det := race.New(race.Options{Family: race.IGUARD})
		x := gpu.Alloc[int32](d, "x", 1)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: c.blocks}, Block: gpu.Dim3{X: c.block}, Observer: det, Deterministic: true}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			switch t.GlobalID() {
			case 0:
				x.Store(t, 0, 1)
			case c.blocks*c.block - 1:
				x.Load(t, 0)
			}
		}))
		rs := det.Reports()
		require.Len(t, rs, 1)
		require.Contains(t, rs[0].Evidence, c.want, "%v", rs[0])
	}
}

// TestPreciseEvidenceWhileTheBlockPolls: the evidence of a missing
// acquire names the thread of the reader's block whose strong read found
// the release (the last rank), and builds it from the states of the
// block's threads while the others, running on, poll a second flag and
// change theirs. The engine takes no lock every access takes, so under
// -race (with the goroutines executor) this fails if evidence reads
// another thread's pending releases without the lock that thread writes
// them under.
func TestPreciseEvidenceWhileTheBlockPolls(t *testing.T) {
	t.Parallel()
	const block = 64
	preciseCase{name: "evidence-while-polling", blocks: 2, block: block, expect: kinds(race.MissingDeviceFence),
		evidence: `Thread (63,0,0) of the reader's block acquired nothing after reading global "flag"[0]`,
		kernel: func(d *gpu.Device) gpu.Kernel {
			data := gpu.Alloc[int32](d, "data", 1)
			flag := gpu.Alloc[uint32](d, "flag", 1)
			other := gpu.Alloc[uint32](d, "other", 1)
			out := gpu.Alloc[int32](d, "out", 1)
			return func(t *gpu.Thread) {
				if t.BlockRank() == 0 {
					switch t.ThreadRank() {
					case 0:
						data.Store(t, 0, 7)
						t.FenceAcqRel(scope.Device)
						flag.StoreVolatile(t, 0, 1)
					case 1:
						t.FenceAcqRel(scope.Device) // a release of nothing the reader's race involves
						other.StoreVolatile(t, 0, 1)
					}
					return
				}
				if t.ThreadRank() == block-1 {
					spin(t, flag)
				}
				t.SyncThreads()
				switch t.ThreadRank() {
				case 1:
					out.Store(t, 0, data.Load(t, 0))
				case block - 1:
				default:
					spin(t, other)
				}
			}
		}}.run(t)
}
