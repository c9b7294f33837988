package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestSeenMemoHoldsOneClock: a noted key repeats at the clock it was
// noted at, whether a read or a write noted it; at another
// clock nothing repeats, and the first note at a new clock drops the
// keys of the old one. A set holds two keys: the third evicts the one
// used least recently.
func TestSeenMemoHoldsOneClock(t *testing.T) {
	t.Parallel()
	var m seenMemo
	const k = 5 | seenValid
	assert.False(t, m.repeats(k, 1), "an empty memo")
	m.note(k, 1)
	assert.True(t, m.repeats(k, 1), "the key at its clock")
	assert.False(t, m.repeats(k, 2), "the key at a later clock")
	assert.False(t, m.repeats(k|seenShared, 1), "the granule of shared memory")
	m.note(6|seenValid, 1) // a write's key is a read's
	assert.True(t, m.repeats(6|seenValid, 1), "a read after a write")
	m.note(k+1<<seenBits, 1)
	assert.True(t, m.repeats(k, 1), "beside one granule of the same set")
	m.note(k+2<<seenBits, 1)
	assert.False(t, m.repeats(k+1<<seenBits, 1), "evicted by a third granule of the set")
	assert.True(t, m.repeats(k, 1), "asked since the second was noted, so used more recently")
	m.note(7|seenValid, 2)
	assert.False(t, m.repeats(6|seenValid, 2), "keys of the old clock dropped")
	assert.False(t, m.repeats(6|seenValid, 1), "and not asked at the old clock")
	assert.True(t, m.repeats(7|seenValid, 2))
}

// TestSeenKeysOnlyForMemoryThatOutlivesTheThread: a weak access of one
// granule of the thread's device's global memory, or of its block's
// shared memory, has a key; a strong access, one of several granules,
// and one of another device's memory or another block's shared memory
// have none.
func TestSeenKeysOnlyForMemoryThatOutlivesTheThread(t *testing.T) {
	t.Parallel()
	th := loneThreadAt(0)
	th.l.dev = 7
	global := &gpu.Memory{Space: gpu.GlobalSpace, DeviceID: 7, ElemSize: 4, Len: 64, Block: -1}
	weak := &gpu.Access{Mem: global, Op: gpu.OpLoad, Order: gpu.Weak}
	assert.Equal(t, uint64(3|seenValid), th.seenKey(weak, 3, 3))
	assert.Zero(t, th.seenKey(weak, 3, 4), "two granules")
	strong := &gpu.Access{Mem: global, Op: gpu.OpLoad, Order: gpu.Relaxed, Scope: scope.Device}
	assert.Zero(t, th.seenKey(strong, 3, 3), "a strong load")
	other := *global
	other.DeviceID = 8
	assert.Zero(t, th.seenKey(&gpu.Access{Mem: &other, Op: gpu.OpLoad}, 3, 3), "another device's memory")
	own := &gpu.Memory{Space: gpu.SharedSpace, DeviceID: 7, ElemSize: 4, Len: 64, Block: th.l.local(th.place.Block)}
	assert.Equal(t, uint64(3|seenValid|seenShared), th.seenKey(&gpu.Access{Mem: own, Op: gpu.OpStore}, 3, 3))
	theirs := *own
	theirs.Block++
	assert.Zero(t, th.seenKey(&gpu.Access{Mem: &theirs, Op: gpu.OpLoad}, 3, 3), "another block's shared memory")
}

// TestSeenMemoKeepsATableBesideAStream: a thread that reads a table of
// nine taps in turn while it streams through an array, one new granule
// between taps, finds every tap after its first pass, wherever the
// stream's granules fall.
func TestSeenMemoKeepsATableBesideAStream(t *testing.T) {
	t.Parallel()
	var m seenMemo
	const taps, table, stream = 9, 1000 | seenValid, 5000 | seenValid
	hits := 0
	for i := range 20 * taps {
		m.note(stream+uint64(i)*57, 1)
		k := table + uint64(i%taps)
		if m.repeats(k, 1) {
			hits++
		} else {
			m.note(k, 1)
		}
	}
	assert.Equal(t, 19*taps, hits, "every tap but its first read")
}
