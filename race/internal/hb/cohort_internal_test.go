package hb

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
)

// TestBlocksOverflowTheirCache: a resident block whose cache slot another
// holds is found, listed and dropped through the overflow, and a freed
// slot serves the next block.
func TestBlocksOverflowTheirCache(t *testing.T) {
	t.Parallel()
	l := &plaunch{p: New(2, false, false, nil, nil, nil), g: &gpu.Grid{Blocks: 2 * blockCache}}
	l.cache = make([]atomic.Pointer[pblock], blockCache)
	a, b := &pblock{id: 3}, &pblock{id: 3 + blockCache}
	l.addBlock(a)
	l.addBlock(b)
	assert.Same(t, a, l.cached(3), "the first in its slot")
	assert.Nil(t, l.cached(b.id), "the second not")
	assert.Same(t, b, l.lookup(b.id))
	assert.Nil(t, l.lookup(-1), "a grid barrier's block number is none")
	assert.Same(t, b, l.block(b.id))
	assert.ElementsMatch(t, []*pblock{a, b}, l.resident())
	assert.Same(t, a, l.dropBlock(3))
	assert.Nil(t, l.lookup(3))
	assert.Same(t, b, l.lookup(b.id), "still in the overflow")
	c := &pblock{id: 3 + 2*blockCache}
	l.addBlock(c)
	assert.Same(t, c, l.cached(c.id), "the freed slot serves")
	assert.Same(t, b, l.dropBlock(b.id))
	assert.Nil(t, l.dropBlock(b.id), "gone")
	assert.Equal(t, []*pblock{c}, l.resident())
}
