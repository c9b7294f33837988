package kernels

import (
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injLaneSkipsLock = "lane-skips-lock"
)

// IguardThreadLock is per-thread locking inside a warp (iGUARD Fig. 9): every
// lane of every warp takes the same device-scope spin lock to add into a
// shared total. Before Volta the lanes of a warp spinning on a lock one of
// them holds deadlocked; under independent thread scheduling they make
// progress, provided the loop runs the critical section only in the
// iteration whose CAS succeeded. Each lane is its own lock holder, so a
// detector must track locks per thread, not per warp: with per-warp lock
// tables a lane that skips the lock looks protected by its neighbour's.
func IguardThreadLock() *Entry {
	return &Entry{
		Name: "iguard/thread-lock",
		Doc:  "every lane takes one device-scope spin lock to add into a total (per-thread locking within a warp)",
		Injections: []Injection{
			{Name: injLaneSkipsLock, Doc: "lane 31 of each warp adds between acq_rel fences but without the lock",
				Expect: []kind.Kind{kind.ImproperLocking, kind.MissingSyncwarp, kind.MissingBlockFence, kind.MissingDeviceFence},
				Where:  where((*threadLock).add), Corrupts: true,
				Precise: &Verdict{Expect: []kind.Kind{kind.MissingSyncwarp}, Why: whyWarpVolatile}},
		},
		Setup: setupThreadLock,
	}
}

type threadLock struct {
	blocks, threads, adds int
	total, lock           gpu.Buffer[int32]
	inject                string
}

func setupThreadLock(d *gpu.Device, p Params) (*Run, error) {
	l := &threadLock{blocks: 2, threads: 64, adds: 2, inject: p.Inject}
	if p.Size == Paper {
		l.blocks, l.threads, l.adds = 4, 256, 8
	}
	l.total, l.lock = gpu.Alloc[int32](d, "total", 1), gpu.Alloc[int32](d, "lock", 1)
	return &Run{Launch: single(launchCfg("thread-lock", l.blocks, l.threads), l.kernel), Check: l.check}, nil
}

func (l *threadLock) kernel(t *gpu.Thread) {
	for range l.adds {
		l.add(t, int32(t.GlobalID()))
	}
}

// add adds v into the total under the lock.
func (l *threadLock) add(t *gpu.Thread, v int32) {
	if l.inject == injLaneSkipsLock && t.Lane() == 31 {
		// acq_rel fences, which iGUARD counts as any fence: with
		// __threadfence (fence.sc), a run whose lanes happened not to
		// interleave would be ordered by the fence.sc order, and the
		// exact family's verdict would rest on the schedule.
		t.FenceAcqRel(scope.Device)
		l.total.StoreVolatile(t, 0, l.total.LoadVolatile(t, 0)+v)
		t.FenceAcqRel(scope.Device)
		return
	}
	for {
		if l.lock.AtomicCAS(t, 0, 0, 1, scope.Device) != 0 {
			continue
		}
		t.ThreadFence()
		l.total.StoreVolatile(t, 0, l.total.LoadVolatile(t, 0)+v)
		t.ThreadFence()
		l.lock.AtomicExch(t, 0, 0, scope.Device)
		return
	}
}

func (l *threadLock) check() error {
	n := l.blocks * l.threads
	want := int32(l.adds * n * (n - 1) / 2)
	if got := l.total.Host()[0]; got != want {
		return fmt.Errorf("total = %d, want %d", got, want)
	}
	return nil
}
