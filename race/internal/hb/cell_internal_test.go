package hb

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

func weakAt(th *pthread, write bool) prec {
	op := gpu.OpLoad
	if write {
		op = gpu.OpStore
	}
	return prec{e: th.self(), op: op, order: gpu.Weak, scope: scope.Thread, write: write}
}

func TestCellKeepsOneThreadsAccessesWithoutLoc(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 7, c: 1}
	var c cell
	r, w := weakAt(th, false), weakAt(th, true)
	require.True(t, c.quick(th, &r), "an empty cell takes the first access")
	require.True(t, c.quick(th, &w), "the thread's write replaces its read")
	assert.Equal(t, w, c.first)
	r2 := weakAt(th, false)
	require.True(t, c.quick(th, &r2), "a read at the write's epoch adds nothing")
	assert.Equal(t, w, c.first, "the write stands for the read")
	assert.Nil(t, c.full)
}

func TestCellNeedsLocForAnotherEpochOrThread(t *testing.T) {
	t.Parallel()
	th, other := &pthread{tid: 7, c: 1}, &pthread{tid: 8, c: 1}
	var c cell
	w := weakAt(th, true)
	require.True(t, c.quick(th, &w))
	th.c++ // a fence: reads after it are no longer stood for by the write
	r := weakAt(th, false)
	assert.False(t, c.quick(th, &r), "a read after a later epoch must be kept beside the write")
	o := weakAt(other, false)
	assert.False(t, c.quick(other, &o), "another thread's access needs the full state")
	s := prec{e: th.self(), op: gpu.OpStore, order: gpu.Relaxed, scope: scope.Device, write: true}
	var empty cell
	assert.False(t, empty.quick(th, &s), "a strong write sets release state, which only a ploc holds")
}

func TestCellLocPlacesFirstRecord(t *testing.T) {
	t.Parallel()
	th := &pthread{tid: 3, c: 1}
	var c cell
	a := prec{e: th.self(), op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
	c.first = a
	loc := c.loc(gpu.GlobalSpace)
	require.NotNil(t, loc.wide, "a wide first record goes to the wide set")
	assert.Equal(t, []prec{a}, loc.wide.members)
	assert.Equal(t, prec{}, c.first, "the cell keeps nothing beside its ploc")
	assert.Same(t, loc, c.loc(gpu.GlobalSpace))
}

// TestCellIsSmallerThanLoc pins the point of the cell: a granule touched
// by one thread costs a cell, not a ploc.
func TestCellIsSmallerThanLoc(t *testing.T) {
	t.Parallel()
	assert.Less(t, unsafe.Sizeof(cell{}), unsafe.Sizeof(ploc{}))
}
