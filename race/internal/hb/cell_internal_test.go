package hb

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

var global = &gpu.Memory{Space: gpu.GlobalSpace}

// accessOf returns th's access of global memory with op, order and
// scope, as Access describes it.
func accessOf(th *pthread, op gpu.Op, o gpu.Order, s scope.Scope) *access {
	a := &gpu.Access{Mem: global, Op: op, Order: o, Scope: s}
	ac := &access{th: th, a: a}
	th.record(&ac.x, a, gpu.Site{}, nil)
	ac.wide, ac.releases = ac.x.wide(gpu.GlobalSpace), th.releases(&ac.x)
	return ac
}

func plain(th *pthread, op gpu.Op) *access { return accessOf(th, op, gpu.Weak, scope.Thread) }

func TestCellKeepsOneThreadsAccessesWithoutLoc(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 7, c: 1}
	var c cell
	r, w := plain(th, gpu.OpLoad), plain(th, gpu.OpStore)
	require.True(t, c.quick(r), "an empty cell takes the first access")
	require.True(t, c.quick(w), "the thread's write replaces its read")
	assert.Equal(t, w.x, c.first)
	require.True(t, c.quick(plain(th, gpu.OpLoad)), "a read at the write's epoch adds nothing")
	assert.Equal(t, w.x, c.first, "the write stands for the read")
}

func TestCellNeedsLocForAnotherEpochOrThread(t *testing.T) {
	t.Parallel()
	th, other := &pthread{tid: 7, c: 1}, &pthread{tid: 8, c: 1}
	var c cell
	require.True(t, c.quick(plain(th, gpu.OpStore)))
	th.c++ // a fence: reads after it are no longer stood for by the write
	assert.False(t, c.quick(plain(th, gpu.OpLoad)), "a read after a later epoch must be kept beside the write")
	assert.False(t, c.quick(plain(other, gpu.OpLoad)), "another thread's access needs the full state")
}

func TestCellKeepsStrongAccessesThatReleaseNothing(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 3, c: 1}
	var c cell
	add := accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Device)
	require.True(t, c.quick(add), "a relaxed atomic with no fence before it releases nothing")
	require.True(t, c.quick(accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Device)), "the wide set keeps one write per thread")
	assert.False(t, c.quick(accessOf(th, gpu.OpLoad, gpu.Relaxed, scope.Device)), "the wide set keeps a read beside the write")
	var n cell
	require.True(t, n.quick(accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Block)))
	assert.False(t, n.quick(accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Device)), "a wide access is not kept in place of a narrow one")
	require.True(t, n.quick(accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Warp)), "a narrower write prunes the thread's strong record")
	th.fence(scope.Block)
	var f cell
	assert.False(t, f.quick(accessOf(th, gpu.OpAdd, gpu.Relaxed, scope.Device)), "after a fence a strong write releases: only a ploc holds that")
	var r cell
	assert.False(t, r.quick(accessOf(th, gpu.OpStore, gpu.Release, scope.Device)), "a release store releases")
}

func TestCellLocPlacesFirstRecord(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 3, c: 1}
	var pg page
	a := prec{e: th.self(), op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
	pg.cells[5].first = a
	assert.Nil(t, pg.locOf(5))
	loc := pg.loc(5, gpu.GlobalSpace, keyRun{})
	require.NotNil(t, loc.wide, "a wide first record goes to the wide set")
	assert.Equal(t, []prec{a}, loc.wide.members)
	assert.Equal(t, prec{}, pg.cells[5].first, "the cell keeps nothing beside its ploc")
	assert.Same(t, loc, pg.loc(5, gpu.GlobalSpace, keyRun{}))
	assert.Same(t, loc, pg.locOf(5))
	assert.Nil(t, pg.locOf(4), "the other cells have none")
}

// TestCellIsSmallerThanLoc pins the point of the cell: a granule touched
// by one thread costs a cell, not a ploc.
func TestCellIsSmallerThanLoc(t *testing.T) {
	t.Parallel()
	assert.Less(t, unsafe.Sizeof(cell{}), unsafe.Sizeof(ploc{}))
}

// TestRecordsHoldNoPointers pins what keeps the collector off the
// shadow: a record holds no pointer, and a page's only pointer is its
// first word, so that scanning a page reads one word and a set's members
// none.
func TestRecordsHoldNoPointers(t *testing.T) {
	t.Parallel()
	assert.False(t, hasPointers(reflect.TypeFor[prec]()), "prec")
	pt := reflect.TypeFor[page]()
	require.Equal(t, "full", pt.Field(0).Name)
	for i := 1; i < pt.NumField(); i++ {
		assert.False(t, hasPointers(pt.Field(i).Type), "page.%s", pt.Field(i).Name)
	}
}

// hasPointers reports whether a value of type ty holds a pointer.
func hasPointers(ty reflect.Type) bool {
	switch ty.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.String:
		return true
	case reflect.Array:
		return ty.Len() > 0 && hasPointers(ty.Elem())
	case reflect.Struct:
		for i := range ty.NumField() {
			if hasPointers(ty.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestSetTailSetsEachField: prec's fields lie where record writes them,
// and the one store of setTail lands each value in its own field.
func TestSetTailSetsEachField(t *testing.T) {
	t.Parallel()
	require.True(t, precLayout)
	x := prec{e: epoch{tid: 3, blk: 4, c: 9}}
	x.setTail(7, gpu.OpCAS, gpu.AcqRel, scope.Block, true)
	assert.Equal(t, prec{e: epoch{tid: 3, blk: 4, c: 9}, path: 7, op: gpu.OpCAS, order: gpu.AcqRel, scope: scope.Block, write: true}, x)
	x.setTail(0, gpu.OpLoad, gpu.Weak, scope.Thread, false)
	assert.Equal(t, prec{e: epoch{tid: 3, blk: 4, c: 9}, op: gpu.OpLoad}, x)
	var y prec
	x.copyTo(&y)
	assert.Equal(t, x, y)
}

// TestRecordDescribesTheAccess: a record made a word at a time holds the
// thread's epoch and the access's class.
func TestRecordDescribesTheAccess(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: -5 + 1<<20, c: 1<<40 + 3}
	th.place.Block = 77
	var x prec
	th.record(&x, &gpu.Access{Mem: global, Op: gpu.OpStore, Order: gpu.Release, Scope: scope.Device}, gpu.Site{}, nil)
	assert.Equal(t, prec{e: th.self(), op: gpu.OpStore, order: gpu.Release, scope: scope.Device, write: true}, x)
}

// TestCrowdedPageMakesRoomyStates: once a full state of a page holds
// more records than its first room, the page's next full states hold
// readSetAt records in place, one allocation each; a new generation of
// the page starts uncrowded.
func TestCrowdedPageMakesRoomyStates(t *testing.T) { // not parallel: AllocsPerRun
	require.True(t, roomyLayout, "a roomyPloc's more follows its few")
	assert.LessOrEqual(t, unsafe.Sizeof(roomyPloc{}), uintptr(192), "a roomy state fits the 192-byte class")
	var pg page
	first := pg.loc(0, gpu.GlobalSpace, keyRun{})
	for tid := range int32(3) {
		first.list(&prec{e: epoch{tid: tid, c: 1}})
		if tid == 0 {
			assert.Equal(t, len(first.few), cap(first.recs), "an uncrowded page's state starts with its first room")
		}
	}
	require.True(t, first.crowded())
	pg.note(first) // as visit does after each check
	next := pg.loc(1, gpu.GlobalSpace, keyRun{})
	require.Equal(t, readSetAt, cap(next.recs))
	room := &next.recs[:1][0]
	for tid := range int32(readSetAt) {
		next.list(&prec{e: epoch{tid: tid, c: 1}})
	}
	assert.Same(t, room, &next.recs[0], "readSetAt records in place, no growth")
	allocs := testing.AllocsPerRun(10, func() { _ = newPloc(true) })
	assert.Equal(t, 1.0, allocs, "one allocation")
	sh := &shadow{gen: 1}
	pg.renew(sh)
	assert.False(t, pg.full.crowded, "a new generation starts uncrowded")
	assert.Nil(t, pg.locOf(0))
	assert.Nil(t, pg.locOf(1))
	for i := range uint64(2) { // the two states of the last generation, emptied, with their room
		spare := pg.loc(2+i, gpu.GlobalSpace, keyRun{})
		assert.Empty(t, spare.recs)
		assert.Equal(t, readSetAt, cap(spare.recs))
	}
	again := pg.loc(4, gpu.GlobalSpace, keyRun{})
	again.list(&prec{e: epoch{tid: 1, c: 1}})
	assert.Equal(t, len(again.few), cap(again.recs), "a state made past the spares starts with its first room")
}
