package race_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/oracle"
	"github.com/warpguard/warpguard/scope"
)

// An orderCase is a kernel whose verdict rests on a memory order: the
// exact detector must report it (racy) or not, and the oracle, watching
// the same execution, must agree.
type orderCase struct {
	name          string
	blocks, block int
	racy          bool
	kernel        func(d *gpu.Device) gpu.Kernel
	// executors are those the case runs under; nil: every executor and
	// the deterministic schedule.
	executors []gpu.Executor
}

// run launches c under each executor and a deterministic schedule,
// watched by the default detector and the oracle's recorder.
func (c orderCase) run(t *testing.T) {
	t.Helper()
	exs := c.executors
	if exs == nil {
		exs = []gpu.Executor{gpu.Fibers, gpu.Goroutines}
	}
	for _, e := range exs {
		for _, det := range []bool{false, true} {
			if det && e != gpu.Fibers {
				continue
			}
			c.once(t, e, det)
		}
	}
}

func (c orderCase) once(t *testing.T, e gpu.Executor, deterministic bool) {
	t.Helper()
	rec := oracle.NewRecorder()
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	defer d.Close()
	det := race.New(race.Options{})
	cfg := gpu.LaunchConfig{Name: c.name, Grid: gpu.Dim3{X: c.blocks}, Block: gpu.Dim3{X: c.block}, Observer: det,
		Executor: e, Deterministic: deterministic, Schedule: gpu.ScheduleRandom, Seed: 7}
	require.NoError(t, d.Launch(context.Background(), cfg, c.kernel(d)))
	reports := det.Reports()
	races := oracle.Analyze(rec.Traces()[0]).Races
	require.Equal(t, c.racy, len(reports) > 0, "%s under %v (deterministic %v): detector reports %v", c.name, e, deterministic, reports)
	require.Equal(t, c.racy, len(races) > 0, "%s under %v (deterministic %v): oracle races %v", c.name, e, deterministic, races)
}

// handoff is message passing through an atomic counter: block 0 writes
// data and adds to the counter with order rel; block 1 polls the counter
// with read-modify-writes of order acq until it changes, then reads data.
func handoff(rel, acq gpu.Order) func(d *gpu.Device) gpu.Kernel {
	return func(d *gpu.Device) gpu.Kernel {
		data := gpu.Alloc[int32](d, "data", 1)
		count := gpu.Alloc[uint32](d, "count", 1)
		out := gpu.Alloc[int32](d, "out", 1)
		return func(t *gpu.Thread) {
			c := count.Ref(t, 0, scope.Device)
			if t.BlockRank() == 0 {
				data.Store(t, 0, 7)
				c.FetchAdd(1, rel)
				return
			}
			for c.FetchAdd(0, acq) == 0 {
			}
			out.Store(t, 0, data.Load(t, 0))
		}
	}
}

// TestOrderedRMWHandoff: a release read-modify-write synchronizes with
// an acquire read-modify-write that reads its value, at every order that
// releases and acquires; a relaxed one on either side orders nothing.
func TestOrderedRMWHandoff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rel, acq gpu.Order
		racy     bool
	}{
		{gpu.Release, gpu.Acquire, false},
		{gpu.AcqRel, gpu.AcqRel, false},
		{gpu.SeqCst, gpu.SeqCst, false},
		{gpu.Relaxed, gpu.Acquire, true},
		{gpu.Release, gpu.Relaxed, true},
	} {
		orderCase{name: "handoff-" + c.rel.String() + "-" + c.acq.String(), blocks: 2, block: 1, racy: c.racy,
			kernel: handoff(c.rel, c.acq)}.run(t)
	}
}

// TestOrderedRMWReleaseSequence: block 0 publishes with a release
// exchange; block 1 continues the release sequence with a relaxed add;
// block 2 acquires with a CAS that reads block 1's value, and so
// synchronizes with block 0's exchange.
func TestOrderedRMWReleaseSequence(t *testing.T) {
	t.Parallel()
	orderCase{name: "release-sequence", blocks: 3, block: 1, kernel: func(d *gpu.Device) gpu.Kernel {
		data := gpu.Alloc[int32](d, "data", 1)
		flag := gpu.Alloc[uint32](d, "flag", 1)
		return func(t *gpu.Thread) {
			f := flag.Ref(t, 0, scope.Device)
			switch t.BlockRank() {
			case 0:
				data.Store(t, 0, 7)
				f.Exchange(1, gpu.Release)
			case 1:
				for f.Load(gpu.Relaxed) == 0 {
				}
				f.FetchAdd(1, gpu.Relaxed)
			default:
				for {
					if _, ok := f.CompareExchange(2, 3, gpu.Acquire); ok {
						break
					}
				}
				_ = data.Load(t, 0)
			}
		}
	}}.run(t)
}

// TestAcqRelRMWReleasesWhatItAcquired: a block-scope release CAS in
// block 0 reaches a thread of block 1 through an acq_rel atomicAdd of its
// own block that read from it: that add synchronizes with the CAS and its
// release carries it, so the add of block 1 that reads from the first add
// follows the CAS, and the two writes, of scopes that do not cover each
// other's threads, do not race. The relaxed flag hands the turn over
// without ordering anything.
func TestAcqRelRMWReleasesWhatItAcquired(t *testing.T) {
	t.Parallel()
	orderCase{name: "acq-rel-chain", blocks: 2, block: 2, kernel: func(d *gpu.Device) gpu.Kernel {
		x := gpu.Alloc[uint32](d, "x", 1)
		turn := gpu.Alloc[uint32](d, "turn", 1)
		return func(t *gpu.Thread) {
			xb, xs := x.Ref(t, 0, scope.Block), x.Ref(t, 0, scope.System)
			tr := turn.Ref(t, 0, scope.Device)
			switch t.GlobalID() {
			case 0:
				xb.CompareExchange(0, 1, gpu.Release)
			case 1:
				for xb.Load(gpu.Relaxed) == 0 {
				}
				xs.FetchAdd(1, gpu.AcqRel)
				tr.Store(1, gpu.Relaxed)
			case 3:
				for tr.Load(gpu.Relaxed) == 0 {
				}
				xs.FetchAdd(1, gpu.AcqRel)
			}
		}
	}}.run(t)
}

// lock is the libcu++ spin lock, cuda::atomic_ref<int,
// thread_scope_device> l(lock[0]); while (l.exchange(1, acquire)); ...;
// l.store(0, release), around a weak increment by one thread of each
// block; with acq and rel relaxed it orders nothing.
func lock(acq, rel gpu.Order) func(d *gpu.Device) gpu.Kernel {
	return func(d *gpu.Device) gpu.Kernel {
		l := gpu.Alloc[int32](d, "lock", 1)
		n := gpu.Alloc[int32](d, "n", 1)
		return func(t *gpu.Thread) {
			r := l.Ref(t, 0, scope.Device)
			for r.Exchange(1, acq) != 0 {
			}
			n.Store(t, 0, n.Load(t, 0)+1)
			r.Store(0, rel)
		}
	}
}

// TestOrderedLock: the libcu++ lock is clean with acquire exchange and
// release store, and reported with relaxed ones.
func TestOrderedLock(t *testing.T) {
	t.Parallel()
	orderCase{name: "lock-acquire", blocks: 4, block: 1, kernel: lock(gpu.Acquire, gpu.Release)}.run(t)
	orderCase{name: "lock-seq_cst", blocks: 4, block: 1, kernel: lock(gpu.SeqCst, gpu.SeqCst)}.run(t)
	orderCase{name: "lock-relaxed", blocks: 4, block: 1, racy: true, kernel: lock(gpu.Relaxed, gpu.Relaxed)}.run(t)
}

// dekker is Dekker's mutual exclusion between ranks 0 and 32 of one
// block (two warps), each entering its weak critical section rounds
// times: raise my flag, fence, enter only if the other's flag is 0,
// fence, lower my flag. With fence.sc (__threadfence), the entrant's
// fence follows, in the fence.sc order, the fence the previous entrant
// made before lowering its flag, so the critical sections are ordered;
// fence.acq_rel fences order nothing here (no fence follows the read of
// the flag before the critical section), and the pair is reported.
func dekker(fence func(t *gpu.Thread)) func(d *gpu.Device) gpu.Kernel {
	return dekkerOf(lanesApart, fence)
}

// lanesApart picks lane 0 of warps 0 and 1 as Dekker's two parties,
// numbered 0 and 1; every other thread returns -1 and sits out.
func lanesApart(t *gpu.Thread) int {
	if t.ThreadRank()%32 != 0 {
		return -1
	}
	return t.ThreadRank() / 32
}

// dekkerOf is Dekker's handshake between the two parties who numbers 0
// and 1, each entering three times and fencing with fence around its read
// of the other's flag.
func dekkerOf(who func(t *gpu.Thread) int, fence func(t *gpu.Thread)) func(d *gpu.Device) gpu.Kernel {
	const rounds = 3
	return func(d *gpu.Device) gpu.Kernel {
		flags := gpu.Alloc[uint32](d, "flags", 2)
		n := gpu.Alloc[int32](d, "n", 1)
		return func(t *gpu.Thread) {
			me := who(t)
			if me < 0 {
				return
			}
			mine, other := flags.Ref(t, me, scope.Device), flags.Ref(t, 1-me, scope.Device)
			for done := 0; done < rounds; {
				mine.Store(1, gpu.Relaxed)
				fence(t)
				if other.Load(gpu.Relaxed) == 0 {
					n.Store(t, 0, n.Load(t, 0)+1)
					done++
				}
				fence(t)
				mine.Store(0, gpu.Relaxed)
			}
		}
	}
}

// dekkerExecutors are the executions a Dekker case runs under: the
// block's threads as fibers, which switch only at yields, so no thread
// runs between another's entry fence and its read of the flag. Under
// goroutines, an entrant may fence while the other is inside, then read
// the flag the other lowered after its own later fence: PTX then orders
// the two critical sections by nothing (the read acquires nothing), a
// real race of that interleaving, which the detector reports.
var dekkerExecutors = []gpu.Executor{gpu.Fibers}

// TestDekkerThreadFence: Dekker with __threadfence() is clean.
func TestDekkerThreadFence(t *testing.T) {
	t.Parallel()
	orderCase{name: "dekker-sc", blocks: 1, block: 64, executors: dekkerExecutors,
		kernel: dekker(func(t *gpu.Thread) { t.ThreadFence() })}.run(t)
}

// TestDekkerAcqRelFence: Dekker with acq_rel fences is reported.
func TestDekkerAcqRelFence(t *testing.T) {
	t.Parallel()
	orderCase{name: "dekker-acq_rel", blocks: 1, block: 64, racy: true, executors: dekkerExecutors,
		kernel: dekker(func(t *gpu.Thread) { t.FenceAcqRel(scope.Device) })}.run(t)
}

// TestDekkerBlockFenceAcrossBlocks: fence.sc of block scope in two blocks
// are not morally strong (neither covers the other's thread), so they
// order nothing: Dekker across blocks with __threadfence_block is
// reported.
func TestDekkerBlockFenceAcrossBlocks(t *testing.T) {
	t.Parallel()
	orderCase{name: "dekker-block-fence", blocks: 2, block: 1, racy: true, executors: dekkerExecutors,
		kernel: dekkerOf((*gpu.Thread).BlockRank, (*gpu.Thread).ThreadFenceBlock)}.run(t)
}

// TestDekkerSeqCstOps: Dekker with seq_cst loads and stores of the flags
// and no fences is clean under every executor: the entrant's seq_cst
// load acquires the other's seq_cst (release) store of 0.
func TestDekkerSeqCstOps(t *testing.T) {
	t.Parallel()
	orderCase{name: "dekker-seq_cst-ops", blocks: 2, block: 1, kernel: func(d *gpu.Device) gpu.Kernel {
		const rounds = 3
		flags := gpu.Alloc[uint32](d, "flags", 2)
		n := gpu.Alloc[int32](d, "n", 1)
		return func(t *gpu.Thread) {
			me := t.BlockRank()
			mine, other := flags.Ref(t, me, scope.Device), flags.Ref(t, 1-me, scope.Device)
			for done := 0; done < rounds; {
				mine.Store(1, gpu.SeqCst)
				if other.Load(gpu.SeqCst) == 0 {
					n.Store(t, 0, n.Load(t, 0)+1)
					done++
				}
				mine.Store(0, gpu.SeqCst)
			}
		}
	}}.run(t)
}
