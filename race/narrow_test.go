package race_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/scope"
)

var families = []race.Family{race.Exact, race.IGUARD}

// TestNarrowNeighbours: threads of two warps, unordered, that store into
// neighbouring 1- or 2-byte elements of one word race with nothing under
// both families, at the default granularity and at 8 bytes; two that
// store into the same element race, and the report names it.
func TestNarrowNeighbours(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		for _, gran := range []int{0, 8} {
			t.Run(fmt.Sprintf("family=%v/gran=%d", f, gran), func(t *testing.T) {
				t.Parallel()
				narrowNeighbours[uint8](t, f, gran)
				narrowNeighbours[int16](t, f, gran)
				narrowNeighbours[gpu.Half](t, f, gran)
			})
		}
	}
}

func narrowNeighbours[T gpu.Elem](t *testing.T, f race.Family, gran int) {
	d := newDevice(t)
	x := gpu.Alloc[T](d, "x", 4)
	det := race.New(race.Options{Family: f, Granularity: gran})
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
		if r := t.ThreadRank(); r == 0 || r == 32 {
			x.Store(t, 1+r/32, 1) // x[1] and x[2], in one word
		}
	}))
	require.Empty(t, det.Reports(), "%s neighbours", x.Memory().Type)

	det = race.New(race.Options{Family: f, Granularity: gran})
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
		if r := t.ThreadRank(); r == 0 || r == 32 {
			x.Store(t, 2, 1)
		}
	}))
	rs := det.Reports()
	require.Len(t, rs, 1, "%s: one element", x.Memory().Type)
	require.Equal(t, 2, rs[0].Index)
	require.Same(t, x.Memory(), rs[0].Mem)
}

// TestNarrowShared: byte flags in shared memory, one per thread, written
// and then read by every thread: clean with the barrier between, a race
// without it, under both families.
func TestNarrowShared(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		for _, sync := range []bool{true, false} {
			d := newDevice(t)
			det := race.New(race.Options{Family: f})
			require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
				flags := gpu.Shared[uint8](t, "flags", 64)
				flags.Store(t, t.ThreadRank(), 1)
				if sync {
					t.SyncThreads()
				}
				_ = flags.Load(t, (t.ThreadRank()+32)%64)
			}))
			if sync {
				require.Empty(t, det.Reports(), "%v", f)
			} else {
				require.NotEmpty(t, det.Reports(), "%v", f)
			}
		}
	}
}

// TestNarrowAtomicScope: 16-bit CAS on neighbouring elements is no race
// whatever its scope; on one element, a block-scope CAS from another
// block is a scoped-atomic race.
func TestNarrowAtomicScope(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		d := newDevice(t)
		x := gpu.Alloc[uint16](d, "x", 2)
		det := race.New(race.Options{Family: f})
		cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}, Observer: det}
		require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			x.AtomicCAS(t, t.BlockRank(), 0, 1, scope.Block)
		}))
		require.Empty(t, det.Reports(), "%v", f)
		require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
			x.AtomicCAS(t, 0, uint16(1-t.BlockRank()), 7, scope.Block)
		}))
		rs := det.Reports()
		require.Len(t, rs, 1, "%v", f)
		require.Equal(t, race.ScopedAtomic, rs[0].Kind)
	}
}

// TestDynamicSharedGranularity: dynamic shared memory, whose views alias,
// keeps the configured granule: byte neighbours share a 4-byte granule
// and race (falsely) by default, and not with Granularity 1; 4-byte
// neighbours share an 8-byte granule.
func TestDynamicSharedGranularity(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		for _, c := range []struct{ gran, races int }{{0, 1}, {1, 0}} {
			require.Len(t, dynamicNeighbours[uint8](t, f, c.gran), c.races, "%v bytes, granularity %d", f, c.gran)
		}
		for _, c := range []struct{ gran, races int }{{0, 0}, {8, 1}} {
			require.Len(t, dynamicNeighbours[int32](t, f, c.gran), c.races, "%v words, granularity %d", f, c.gran)
		}
	}
}

// dynamicNeighbours returns the reports of two unordered stores to
// elements 0 and 1 of a DynamicShared view of T.
func dynamicNeighbours[T gpu.Elem](t *testing.T, f race.Family, gran int) []race.Report {
	d := newDevice(t)
	det := race.New(race.Options{Family: f, Granularity: gran})
	cfg := gpu.LaunchConfig{Name: "k", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, DynamicShared: 8, Observer: det}
	require.NoError(t, d.Launch(t.Context(), cfg, func(t *gpu.Thread) {
		if r := t.ThreadRank(); r == 0 || r == 32 {
			gpu.DynamicShared[T](t).Store(t, r/32, 1)
		}
	}))
	return det.Reports()
}

// TestViewReport: a race through a view is reported on the view's
// buffer, at the element's index in the buffer, under both families.
func TestViewReport(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		d := newDevice(t)
		x := gpu.Alloc[int32](d, "x", 16)
		v := x.Slice(4, 12)
		det := race.New(race.Options{Family: f})
		require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
			switch t.ThreadRank() {
			case 0:
				v.Store(t, 3, 1)
			case 32:
				x.Store(t, 7, 2) // the same element, through the buffer
			case 33:
				v.Store(t, 4, 1) // its neighbour: no race
			}
		}))
		rs := det.Reports()
		require.Len(t, rs, 1, "%v", f)
		require.Same(t, x.Memory(), rs[0].Mem)
		require.Equal(t, 7, rs[0].Index)
		require.Contains(t, rs[0].String(), `global "x"[7]`)
	}
}

// TestNarrowGranulesApart: the exact family numbers a byte buffer's
// granules apart from a word buffer's in one device's shadow, so a byte
// whose address equals a word granule's number shares nothing with it.
func TestNarrowGranulesApart(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	a := gpu.Alloc[uint8](d, "a", 4<<20) // b's granule numbers, a quarter of its addresses, fall in it
	b := gpu.Alloc[int32](d, "b", 16)
	i, j := sameNumber(b.Memory(), a.Memory(), 0)
	require.GreaterOrEqual(t, j, 0, "the layout has such a pair: a at %d, b at %d", a.Memory().Base, b.Memory().Base)
	storesApart(t, d, func(t *gpu.Thread) { a.Store(t, j, 1) }, func(t *gpu.Thread) { b.Store(t, i, 1) })
}

// TestWideGranulesApart: the exact family numbers an 8-byte buffer's
// granules, one per element, apart from a word buffer's in one device's
// shadow, so an element whose granule number equals a word's shares
// nothing with it.
func TestWideGranulesApart(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	b := gpu.Alloc[int32](d, "b", 16)
	a := gpu.Alloc[uint64](d, "a", 1<<18) // its element numbers, an eighth of its addresses, reach b's word numbers
	i, j := sameNumber(b.Memory(), a.Memory(), 3)
	require.GreaterOrEqual(t, j, 0, "the layout has such a pair: a at %d, b at %d", a.Memory().Base, b.Memory().Base)
	storesApart(t, d, func(t *gpu.Thread) { a.Store(t, j, 1) }, func(t *gpu.Thread) { b.Store(t, i, 1) })
}

// sameNumber returns a word i of b, a buffer of 4-byte elements, and an
// element j of a, whose granules are 1<<shiftA bytes, whose granule
// numbers would be equal if their sizes were not told apart; j is -1
// if no such pair lies in the two buffers.
func sameNumber(b, a *gpu.Memory, shiftA uint) (i, j int) {
	lo := a.Base >> shiftA
	for i = range b.Len {
		if g := (b.Base + uint64(4*i)) >> 2; g >= lo && g < lo+uint64(a.Len) {
			return i, int(g - lo)
		}
	}
	return 0, -1
}

// storesApart runs storeA in thread 0 and storeB in thread 32, in two
// warps that nothing orders, under the exact family, and requires that
// they race with nothing.
func storesApart(t *testing.T, d *gpu.Device, storeA, storeB func(*gpu.Thread)) {
	t.Helper()
	det := race.New(race.Options{Family: race.Exact})
	require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
		switch t.ThreadRank() {
		case 0:
			storeA(t)
		case 32:
			storeB(t)
		}
	}))
	require.Empty(t, det.Reports())
}

// TestWideElementIsOneGranule: under the exact family an 8-byte element
// is one granule at any granularity: each access is one check, a
// thread's reload at one epoch is settled by the thread alone, with no
// page lock, and two unordered stores to one element are one race,
// named by the element's index.
func TestWideElementIsOneGranule(t *testing.T) {
	t.Parallel()
	for _, gran := range []int{0, 1, 4, 8} {
		d := newDevice(t)
		x := gpu.Alloc[float64](d, "x", 4)
		det := race.New(race.Options{Family: race.Exact, Granularity: gran})
		require.NoError(t, twoWarps(t, d, det, func(t *gpu.Thread) {
			switch t.ThreadRank() {
			case 0:
				x.Store(t, 1, 1)
				x.Load(t, 1)
				x.Store(t, 2, 1)
			case 32:
				x.Store(t, 2, 2)
			}
		}), "granularity %d", gran)
		st := det.Stats()
		require.Equal(t, st.Accesses, st.Checks, "granularity %d: one check an access", gran)
		require.Equal(t, uint64(1), st.Repeats, "granularity %d: the reload", gran)
		require.Equal(t, uint64(3), st.Locks, "granularity %d: the three stores", gran)
		rs := det.Reports()
		require.Len(t, rs, 1, "granularity %d", gran)
		require.Equal(t, 2, rs[0].Index, "granularity %d", gran)
	}
}
