package hb

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestChainFollowsAHandoff: members put by threads each of which knew
// the last one's access form a chain, which a thread that knows the last
// member follows (and the set's own last thread does); checkLanes then
// compares nothing. A member put by a thread that did not know the last
// breaks the chain, and the lanes are walked again and found; a prune
// that leaves members keeps it broken, and emptying the set mends it.
func TestChainFollowsAHandoff(t *testing.T) {
	t.Parallel()
	ths := blockThreads(8)
	w := newThreadSet(setIndexAt, ths[0].blockKeys())
	volatile := func(th *pthread) *prec {
		return &prec{e: th.self(), op: gpu.OpStore, order: gpu.Volatile, scope: scope.System, write: true}
	}
	assert.True(t, w.followedBy(&ths[3]), "an empty set")
	for i := range 4 { // thread i+1 learns thread i's epoch: a lock's handoff
		th := &ths[i]
		if i > 0 {
			th.know = threadsClock([]epoch{ths[i-1].self()})
		}
		require.True(t, putIn(w, th, volatile(th)))
		th.c++ // its release
	}
	assert.False(t, w.broken)
	assert.True(t, w.followedBy(&ths[3]), "the last member's own thread")
	ths[4].know = threadsClock([]epoch{at(ths[3].tid, 0, 0, 1)})
	assert.True(t, w.followedBy(&ths[4]), "a thread that knows the last member")
	before := ths[4].n.pairs
	assert.Nil(t, w.checkLanes(&ths[4], volatile(&ths[4])), "a lane race with none of them")
	assert.Equal(t, before, ths[4].n.pairs, "and compared none")

	assert.False(t, w.followedBy(&ths[5]), "a thread that knows nothing")
	y := w.checkLanes(&ths[5], volatile(&ths[5]))
	require.NotNil(t, y, "races with a lane it does not follow")
	require.True(t, putIn(w, &ths[5], volatile(&ths[5])))
	assert.True(t, w.broken, "a member that did not follow breaks the chain")
	ths[6].know = threadsClock([]epoch{ths[5].self()})
	assert.False(t, w.followedBy(&ths[6]), "knowing the last member is not enough then")
	assert.NotNil(t, w.checkLanes(&ths[6], volatile(&ths[6])), "the lanes are walked")

	w.dropped(3)
	assert.True(t, w.broken, "a prune that leaves members")
	w.empty()
	assert.True(t, w.followedBy(&ths[6]), "an emptied set")
	require.True(t, w.put(volatile(&ths[1]), false))
	assert.False(t, w.broken, "a lone member is a chain, put by whom it may")
	require.True(t, w.put(volatile(&ths[2]), false))
	assert.True(t, w.broken, "put with nothing said of its order")
}
