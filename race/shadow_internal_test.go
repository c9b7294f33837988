package race

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestEntrySize keeps an entry within two cache lines, with the lock, the
// repeat and coalescing words and the last accessor in the first: every
// check moves its lines between cores on contention, and first touches
// clear whole pages of entries.
func TestEntrySize(t *testing.T) {
	var e entry
	if s := unsafe.Sizeof(e); s > 128 {
		t.Errorf("entry is %d bytes, want at most 128", s)
	}
	if s := unsafe.Sizeof(record{}); s > 32 {
		t.Errorf("record is %d bytes, want at most 32", s)
	}
	if end := unsafe.Offsetof(e.r) + unsafe.Sizeof(e.r); end > 64 {
		t.Errorf("the last accessor ends at byte %d of the entry, want it in the first 64", end)
	}
	p := (&shadow{pool: new(sync.Pool)}).newPage(1 << pageBits)
	if a := uintptr(unsafe.Pointer(&p.e[0])) % 64; a != 0 {
		t.Errorf("a page's entries start %d bytes into a cache line", a)
	}
}

// TestShadowsRegistry adds more memories than the registry's array holds,
// so that the rest go to its map, and drops some of each: every memory
// keeps its one metadata until dropped, and a dropped one gets fresh
// metadata on its next use.
func TestShadowsRegistry(t *testing.T) {
	dev, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	ss := newShadows(New(Options{}))
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
			require.Nil(t, ss.lookup(m.ID), "dropped memory %d", i)
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
		ss := newShadows(New(Options{}))
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
