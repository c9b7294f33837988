package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bandSpan is the thread ids one band covers.
const bandSpan = 1 << (chunkBits + bandBits)

func TestBandedSplitsByRun(t *testing.T) {
	t.Parallel()
	v := threadsClock([]epoch{at(1, 0, 0, 1), at(bandSpan-1, 0, 0, 1), at(bandSpan, 1, 0, 1), at(3*bandSpan+2, 3, 0, 1)})
	require.Len(t, v.bands, 3)
	assert.Equal(t, []int32{0, 1, 3}, []int32{v.bands[0].k, v.bands[1].k, v.bands[2].k})
	assert.Equal(t, int32(2), v.bands[0].epochs)
	assert.Equal(t, 4, bandEpochs(v.bands))
	assert.Equal(t, uint64(1), v.threadC(3*bandSpan+2))
	assert.Zero(t, v.threadC(2*bandSpan))
}

// TestJoinKeepsUnchangedBands: a join that changes one band shares the
// others, pruned or not; one whose block entries prune a band copies
// that band alone.
func TestJoinKeepsUnchangedBands(t *testing.T) {
	t.Parallel()
	big := wideClock(4*bandSpan, 1)
	j := join(big, threadsClock([]epoch{at(bandSpan+7, (bandSpan+7)/64, 0, 2)}), nil)
	for i, g := range j.bands {
		assert.Equal(t, i != 1, big.bands[i].is(g), "band %d", i)
	}
	// wideClock puts every thread in block 0: a block entry for it past
	// their generation implies every epoch, and the join keeps none.
	pruned := join(big, &vclock{b: []bgen{{0, 1}}}, nil)
	assert.Empty(t, pruned.bands)
	assert.Zero(t, pruned.ne)
}
