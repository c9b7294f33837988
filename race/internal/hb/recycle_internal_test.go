package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// wideWrite returns a device-scope atomic write of thread tid of block
// blk, a wide access of global memory.
func wideWrite(tid, blk int32) prec {
	return prec{e: epoch{tid: tid, blk: blk, c: 1}, op: gpu.OpAdd, order: gpu.Relaxed, scope: scope.Device, write: true}
}

// TestRecycledStateServesEmptied: a new generation of a page gives its
// cells the full states of the last one, emptied, and their sets, emptied
// with their members' room and their index's table; a set refilled by
// another block's threads finds its members and none of the last ones,
// and a page renewed and refilled so allocates next to nothing.
func TestRecycledStateServesEmptied(t *testing.T) { // not parallel: AllocsPerRun
	var pg page
	fill := func(loc *ploc, blk int32) {
		for r := range int32(64) {
			x := wideWrite(blk*64+r, blk)
			loc.place(nil, &x, true, pg.full, keyRun{})
		}
	}
	loc := pg.loc(0, gpu.GlobalSpace, keyRun{})
	loc.list(&prec{e: epoch{tid: 1, c: 1}})
	loc.rel, loc.raced = &relInfo{}, true
	fill(loc, 0)
	set := loc.wide
	require.NotNil(t, set.at, "64 members are indexed")

	gen := uint64(1)
	pg.renew(&shadow{gen: gen})
	assert.Nil(t, pg.locOf(0))
	again := pg.loc(3, gpu.GlobalSpace, keyRun{})
	require.Same(t, loc, again, "the last generation's state")
	assert.Empty(t, again.recs)
	assert.Nil(t, again.wide)
	assert.Nil(t, again.rel)
	assert.False(t, again.raced)
	fill(again, 5)
	require.Same(t, set, again.wide, "the last generation's set")
	assert.Len(t, set.members, 64)
	for r := range int32(64) {
		_, ok := set.find(setKey(&prec{e: epoch{tid: 5*64 + r}, write: true}))
		assert.True(t, ok, "block 5's thread %d", r)
		_, ok = set.find(setKey(&prec{e: epoch{tid: r}, write: true}))
		assert.False(t, ok, "block 0's thread %d", r)
	}

	blk := int32(6)
	allocs := testing.AllocsPerRun(10, func() {
		gen++
		pg.renew(&shadow{gen: gen})
		fill(pg.loc(0, gpu.GlobalSpace, keyRun{}), blk)
		blk++
	})
	assert.LessOrEqual(t, allocs, 2.0, "a refill allocates the set's block notes at most")
}

// TestEmptyIndexMovesToNextBlock: an index emptied for another block's
// threads moves its table to their keys rather than growing it or
// turning to a map: once it has covered one block's keys it covers any
// other block's of the same size with no allocation.
func TestEmptyIndexMovesToNextBlock(t *testing.T) { // not parallel: AllocsPerRun
	var x setIndex
	blk := int32(0)
	fill := func() {
		x.clear()
		for r := range int32(256) {
			tid := blk*256 + (r*37)%256 // in no particular order
			x.set(2*tid+1, r)
		}
		blk++
	}
	fill()
	fill()
	assert.Zero(t, testing.AllocsPerRun(10, fill))
	assert.Nil(t, x.at, "a dense table")
	for r := range int32(256) {
		i, ok := x.find(2*((blk-1)*256+(r*37)%256) + 1)
		assert.True(t, ok)
		assert.Equal(t, r, i)
	}
	_, ok := x.find(2*((blk-2)*256) + 1)
	assert.False(t, ok, "the block before's keys are gone")
}
