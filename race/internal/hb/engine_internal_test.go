package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
)

// TestSequenceIsThePageLock: the mutex the runtime takes for a sequenced
// access is the page lock of the element's granules, so that visit takes
// no lock for the head granule of a sequenced access, nor for the others
// when they share it; the elements of one page share it, and a block's
// shared memory has one whatever its views.
func TestSequenceIsThePageLock(t *testing.T) {
	t.Parallel()
	p := New(2, false, false, nil, nil, nil)
	words := &gpu.Memory{Space: gpu.GlobalSpace, DeviceID: 1, ElemSize: 4, Len: 1 << 10, Base: 1 << 12, Block: -1}
	for i := range words.Len {
		first, last := p.granulesAt(words, uint64(i)*4, 4)
		assert.Equal(t, first>>pageBits, last>>pageBits, "element %d within one page", i)
		assert.Same(t, p.pageLock(words, first>>pageBits), p.Sequence(words, i), "element %d", i)
	}
	assert.Same(t, p.Sequence(words, 0), p.Sequence(words, 15), "one page")
	var spread int
	for i := 16; i < words.Len; i += 16 {
		if p.Sequence(words, i) != p.Sequence(words, i-16) {
			spread++
		}
	}
	assert.Greater(t, spread, words.Len/16/2, "neighbouring pages mostly on different stripes")
	longs := &gpu.Memory{Space: gpu.GlobalSpace, DeviceID: 1, ElemSize: 8, Len: 64, Base: 1 << 16, Block: -1}
	for i := range longs.Len {
		first, last := p.granulesAt(longs, uint64(i)*8, 8)
		assert.Equal(t, first>>pageBits, last>>pageBits, "an 8-byte element's granules within one page")
	}
	shared := &gpu.Memory{Space: gpu.SharedSpace, DeviceID: 1, ElemSize: 4, Len: 1 << 10, Block: 3}
	dynamic := &gpu.Memory{Space: gpu.SharedSpace, DeviceID: 1, ElemSize: 1, Len: 1 << 12, Base: 1 << 32, Block: 3, Type: "byte"}
	for _, i := range []int{0, 100, 1000} {
		assert.Same(t, p.pageLock(shared, 0), p.Sequence(shared, i))
		assert.Same(t, p.pageLock(shared, 0), p.Sequence(dynamic, 4*i), "dynamic shared memory shares its block's lock")
	}
}
