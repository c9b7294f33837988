package iguard

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResidents: blocks whose ids share a bucket are all found, the
// later ones through the map behind the table; a removed block is found
// no more, and the others still are; a block whose state was recycled
// (its rid changed) is not found under its old id.
func TestResidents(t *testing.T) {
	var r residents
	r.init(4)
	require.Len(t, r.bucket, 4)
	bs := make([]*block, 3)
	for i, id := range []int{1, 5, 9} { // one bucket
		bs[i] = &block{id: id}
		bs[i].rid.Store(int64(id))
		r.put(bs[i])
	}
	for _, b := range bs {
		require.Same(t, b, r.get(b.id), "block %d", b.id)
	}
	require.Nil(t, r.get(2))
	r.del(bs[0])
	require.Nil(t, r.get(1))
	require.Same(t, bs[1], r.get(5))
	r.del(bs[1])
	require.Same(t, bs[2], r.get(9), "from the map")

	b := &block{id: 3}
	b.rid.Store(3)
	r.put(b)
	b.rid.Store(-1) // ended, not yet removed
	require.Nil(t, r.get(3))

	var big residents
	big.init(1 << 31)
	require.Len(t, big.bucket, maxResidentBuckets, "bounded whatever the grid")
}
