package kernels

import (
	"fmt"
	"slices"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injSharedBroadcast = "shared-broadcast"
)

// IguardWarpAggregated filters an array with warp-aggregated atomics, as the
// CUDA samples' warpAggregatedAtomicsCG (iGUARD's warpAA, race-free):
// the lanes whose element passes form a coalesced group, its first lane
// reserves room for the whole group with one device-scope atomic add, the
// group shuffles the reserved start to every lane, and each lane stores
// its element's index at start + its rank in the group. The shuffle is a
// collective, so it orders the leader's reservation before the lanes'
// use of it. The output's order depends on the schedule; it is checked as
// a set.
func IguardWarpAggregated() *Entry {
	return &Entry{
		Name: "iguard/warp-aggregated",
		Doc:  "stream filter with warp-aggregated atomics over coalesced groups",
		Injections: []Injection{
			{Name: injSharedBroadcast, Doc: "the leader passes the start through shared memory with no __syncwarp instead of a shuffle; lanes that read a stale start then store over other groups' room",
				Expect: []kind.Kind{kind.MissingSyncwarp, kind.MissingBlockFence, kind.MissingDeviceFence},
				Where:  where((*warpAggregated).emit), Corrupts: true},
		},
		Setup: setupWarpAggregated,
	}
}

type warpAggregated struct {
	n, blocks, threads int
	in, out, count     gpu.Buffer[int32]
	inject             string
	host               []int32
}

func setupWarpAggregated(d *gpu.Device, p Params) (*Run, error) {
	w := &warpAggregated{n: 20_000, blocks: 8, threads: 128, inject: p.Inject}
	if p.Size == Paper {
		w.n, w.blocks, w.threads = 1<<22, 64, 256
	}
	w.host = randInt32s(newRand(p.Seed), w.n, 100)
	w.in, w.out, w.count = gpu.FromHost(d, "in", w.host), gpu.Alloc[int32](d, "out", w.n), gpu.Alloc[int32](d, "count", 1)
	return &Run{Launch: single(launchCfg("warp-aggregated", w.blocks, w.threads), w.kernel), Check: w.check}, nil
}

// keep is the filter's predicate.
func keep(v int32) bool { return v >= 60 }

func (w *warpAggregated) kernel(t *gpu.Thread) {
	for i := t.GlobalID(); i < w.n; i += w.blocks * w.threads {
		if keep(w.in.Load(t, i)) {
			w.emit(t, gpu.CoalescedThreads(t), i)
		}
	}
}

// emit stores index i at the group's start, which the group's leader
// reserves for the whole group, plus the lane's rank in the group.
func (w *warpAggregated) emit(t *gpu.Thread, g gpu.Coalesced, i int) {
	var start int32
	if g.ThreadRank() == 0 {
		start = w.count.AtomicAdd(t, 0, int32(g.Size()), scope.Device)
	}
	if w.inject != injSharedBroadcast {
		start = gpu.Shfl(g, start, 0)
	} else {
		slot := gpu.Shared[int32](t, "groupStart", t.Grid().Warps)
		if g.ThreadRank() == 0 {
			slot.Store(t, t.Warp(), start)
		}
		start = slot.Load(t, t.Warp())
	}
	w.out.Store(t, int(start)+g.ThreadRank(), int32(i))
}

func (w *warpAggregated) check() error {
	var want []int32
	for i, v := range w.host {
		if keep(v) {
			want = append(want, int32(i))
		}
	}
	if c := int(w.count.Host()[0]); c != len(want) {
		return fmt.Errorf("count = %d, want %d", c, len(want))
	}
	got := w.out.Host()[:len(want)]
	slices.Sort(got)
	return sameAll("filtered indices", got, want)
}
