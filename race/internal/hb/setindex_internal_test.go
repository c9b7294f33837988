package hb

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetIndexAgreesWithAMap: keys of a run stay in a dense table, keys
// spread far move to a map, and either way every key finds its index.
func TestSetIndexAgreesWithAMap(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		spread int32
		dense  bool
	}{{"one-block", 512, true}, {"spread", 1 << 20, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(1, uint64(c.spread)))
			var x setIndex
			want := map[int32]int32{}
			for i := range int32(300) {
				k := 1000 + r.Int32N(c.spread)
				x.set(k, i)
				want[k] = i
			}
			assert.Equal(t, c.dense, x.at == nil, "dense table kept")
			for k, i := range want {
				got, ok := x.find(k)
				require.True(t, ok, "key %d", k)
				require.Equal(t, i, got, "key %d", k)
			}
			for _, k := range []int32{0, 999, 1000 + c.spread, 1 << 30} {
				_, ok := x.find(k)
				assert.False(t, ok, "key %d was never set", k)
			}
		})
	}
}

// TestSetIndexGrowsDownward: a key below the table's run widens it
// downward and keeps the keys above.
func TestSetIndexGrowsDownward(t *testing.T) {
	t.Parallel()
	var x setIndex
	for k := int32(100); k < 110; k++ {
		x.set(k, k)
	}
	x.set(90, 7)
	require.Nil(t, x.at)
	for k := int32(100); k < 110; k++ {
		i, ok := x.find(k)
		require.True(t, ok)
		require.Equal(t, k, i)
	}
	i, ok := x.find(90)
	require.True(t, ok)
	assert.Equal(t, int32(7), i)
}

// TestSetIndexClearKeepsTheTable: a cleared dense table finds no key
// and takes new ones in its own room; a cleared map starts over dense.
func TestSetIndexClearKeepsTheTable(t *testing.T) {
	t.Parallel()
	var x setIndex
	for k := int32(100); k < 140; k++ {
		x.set(k, k)
	}
	room := &x.dense[0]
	x.clear()
	_, ok := x.find(120)
	assert.False(t, ok, "no key after clear")
	x.set(121, 5)
	i, ok := x.find(121)
	require.True(t, ok)
	assert.Equal(t, int32(5), i)
	assert.Same(t, room, &x.dense[0], "the table's room is reused")

	for k := int32(0); k < 40; k++ {
		x.set(k<<20, k)
	}
	require.NotNil(t, x.at, "spread keys went to a map")
	x.clear()
	_, ok = x.find(3 << 20)
	assert.False(t, ok)
	x.set(7, 1)
	assert.Nil(t, x.at, "dense again")
	i, ok = x.find(7)
	require.True(t, ok)
	assert.Equal(t, int32(1), i)
}

// TestBlockGensMapsManyBlocks: past blockGensFew blocks the generations
// move to a map, and knownBy reads both forms alike.
func TestBlockGensMapsManyBlocks(t *testing.T) {
	t.Parallel()
	var h blockGens
	var all []bgen
	for b := range int32(3 * blockGensFew) {
		h.raise(at(b, b, 1, 2))
		h.raise(at(b, b, 0, 9)) // an older generation raises nothing
		all = append(all, bgen{b, 2})
		if b == blockGensFew-1 {
			require.Nil(t, h.at, "a few blocks are listed")
		}
	}
	require.NotNil(t, h.at)
	assert.True(t, h.knownBy(&vclock{b: all}))
	all[5].k = 1
	assert.False(t, h.knownBy(&vclock{b: all}), "block 5 known one generation short")
}

// TestSparseKeysOfOneBlockCoverItsRun: the first keys of a block's
// threads, too sparse for a table of their own, make a table over the
// block's run, not a map, which every later key of the block finds room
// in; a key of another block still turns the keys into a map, and every
// key finds its index either way.
func TestSparseKeysOfOneBlockCoverItsRun(t *testing.T) {
	t.Parallel()
	run := keyRun{lo: 2 * 768, n: 2 * 256} // block 3 of 256-thread blocks
	x := setIndex{run: run}
	want := map[int32]int32{}
	set := func(k, i int32) {
		x.set(k, i)
		want[k] = i
	}
	for i, tid := range []int32{768, 1000, 800, 1020, 900} { // sparse: 500 keys apart
		set(2*tid+1, int32(i))
	}
	require.Nil(t, x.at, "a dense table")
	assert.Equal(t, run.lo, x.lo)
	assert.Len(t, x.dense, int(run.n), "over the block's run")
	for tid := int32(768); tid < 1024; tid++ {
		set(2*tid, 100+tid)
	}
	assert.Nil(t, x.at)
	assert.Len(t, x.dense, int(run.n), "the block's keys fill it in with no growth")
	set(2*5000, 7) // a thread of another block
	assert.NotNil(t, x.at, "keys of two blocks spread far go to a map")
	for k, i := range want {
		got, ok := x.find(k)
		require.True(t, ok, "key %d", k)
		require.Equal(t, i, got, "key %d", k)
	}
}
