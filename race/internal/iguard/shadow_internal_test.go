package iguard

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/scope"
)

// TestEntrySize keeps an entry, fully expanded, within one cache line:
// every check moves its line between cores on contention, and first
// touches clear whole pages of entries.
func TestEntrySize(t *testing.T) {
	var e entry
	assert.LessOrEqual(t, unsafe.Sizeof(e), uintptr(64), "entry bytes")
	assert.Equal(t, uintptr(14), unsafe.Sizeof(packed{}), "packed record bytes")
	p := (&shadow{pool: new(sync.Pool)}).newPage(1 << pageBits)
	assert.Zero(t, uintptr(unsafe.Pointer(&p.e[0]))%64, "a page's entries must start a cache line")
}

// TestStampRange: stamps keep their top bit clear, which is the lock's
// (see locked), up to the last thread that has one; the next thread gets
// stamp 0, and stamp 0 repeats nothing, not even a fresh entry's zero
// word. It once did, and every first access of a thread past the stamp
// range was taken for a repeat and never checked.
func TestStampRange(t *testing.T) {
	w := &warp{}
	last := &thread{threadPos: threadPos{w: w}, threadOwn: threadOwn{gid: 1<<21 - 2}}
	st := last.stampOf(^uint32(0), gpu.OpDec, gpu.Release, scope.System)
	require.NotZero(t, st)
	require.Zero(t, st&locked, "a stamp has the lock's bit")
	require.Zero(t, (&thread{threadPos: threadPos{w: w}, threadOwn: threadOwn{gid: 1<<21 - 1}}).stampOf(0, gpu.OpLoad, gpu.Weak, scope.Thread))

	s := &shadow{n: 1, pages: make([]pageRef, 1), bytes: new(atomic.Int64), pool: new(sync.Pool)}
	require.False(t, s.repeats(0, 0, nil), "stamp 0 against a fresh entry")
	e, _ := s.at(0)
	e.word.Store(st)
	require.True(t, s.repeats(0, st, nil))
	e.word.Store(locked)
	require.False(t, s.repeats(0, st, nil), "an entry being updated")
}

// TestShadowsRegistry adds more memories than the registry's array holds,
// so that the rest go to its map, and drops some of each: every memory
// keeps its one metadata until dropped, and a dropped one gets fresh
// metadata on its next use.
func TestShadowsRegistry(t *testing.T) {
	dev, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	ss := newShadows(testEngine())
	var mems []*gpu.Memory
	var first []*shadow
	for i := range 20 {
		m := gpu.Alloc[int32](dev, fmt.Sprint("m", i), 4).Memory()
		mems = append(mems, m)
		first = append(first, ss.get(m))
	}
	require.EqualValues(t, len(ss.few), ss.nfew.Load())
	require.Len(t, *ss.m.Load(), 20-len(ss.few))
	for i, m := range mems {
		require.Same(t, first[i], ss.get(m), "memory %d", i)
	}
	odd := func(s *shadow) bool { return slices.Index(mems, s.mem)%2 == 0 }
	ss.drop(odd)
	for i, m := range mems {
		if i%2 == 0 {
			require.Same(t, first[i], ss.get(m), "kept memory %d", i)
		} else {
			require.Nil(t, ss.lookup(shared.KeyOf(m)), "dropped memory %d", i)
			require.NotSame(t, first[i], ss.get(m), "memory %d after its drop", i)
		}
	}
}

// TestShadowsConcurrentGet: goroutines asking for the same memories at
// once, past the array into the map, all get one metadata per memory.
func TestShadowsConcurrentGet(t *testing.T) {
	dev, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	var mems []*gpu.Memory
	for i := range 24 {
		mems = append(mems, gpu.Alloc[int32](dev, fmt.Sprint("m", i), 4).Memory())
	}
	for range 20 {
		ss := newShadows(testEngine())
		got := make([][]*shadow, 8)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() {
				for _, m := range mems {
					got[g] = append(got[g], ss.get(m))
				}
			})
		}
		wg.Wait()
		for g := range got {
			require.Equal(t, got[0], got[g], "goroutine %d", g)
		}
	}
}

// TestFenceNumbersEnd: a thread's fence numbers do not wrap. Its last
// number still orders a record made before it; the next fence panics,
// naming the thread and the launch, instead of making every earlier
// access look unfenced.
func TestFenceNumbersEnd(t *testing.T) {
	l := newLaunch(testEngine(), &gpu.Grid{Name: "k", Blocks: 1, BlockSize: 8, Threads: 8, WarpSize: 4, Warps: 2})
	l.start(0)
	th := &l.res.get(0).threads[7]
	th.seq.Store(^uint32(0) - 1)
	th.fence(scope.Block)
	md := &record{tid: 8, seq: th.seq.Load() - 1}
	require.True(t, l.fencedSince(md, fenceBlock))
	require.False(t, l.fencedSince(md, fenceDevice))
	require.PanicsWithError(t, `race: thread 7 made 2^32 fences in launch "k"; the detector numbers a thread's fences in 32 bits`,
		func() { th.fence(scope.Device) })
}
