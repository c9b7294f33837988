package gpu

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatePoolReuses: a slot index takes back the states it gave back,
// cleared, with its wake channels kept and emptied; an array too small
// for the block is replaced, and the pool keeps no more states than its
// max.
func TestStatePoolReuses(t *testing.T) {
	p := statePool{max: 8}
	ss := p.take(0, 4, true)
	require.Len(t, ss, 4)
	ch := ss[1].wakeCh
	require.NotNil(t, ch)
	ch <- struct{}{} // a wake-up a stopped launch left behind
	ss[1].at = waitInfo{kind: waitSyncThreads}
	ss[2].spinIdx = 7
	p.put(0, ss)

	again := p.take(0, 4, true)
	require.Same(t, &ss[0], &again[0], "slot 0 took back its own states")
	require.Equal(t, waitInfo{}, again[1].at)
	require.Zero(t, again[2].spinIdx)
	require.Equal(t, ch, again[1].wakeCh, "the wake channel is kept")
	require.Empty(t, again[1].wakeCh, "and emptied")
	p.put(0, again)

	other := p.take(1, 4, false)
	require.NotSame(t, &ss[0], &other[0], "slot 1 has states of its own")
	require.Nil(t, other[0].wakeCh, "no channels for fibers")
	p.put(1, other)
	p.put(2, make([]syncState, 4))
	require.Equal(t, 8, p.n, "the third array is past max")

	bigger := p.take(0, 16, false)
	require.Len(t, bigger, 16)
	require.NotSame(t, &ss[0], &bigger[0], "an array too small is replaced")
	require.Equal(t, 4, p.n)
}
