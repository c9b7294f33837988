package kernels

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A path 0-1-2, an isolated 3, and an edge 4-5.
var tiny = graph{v: 6, eu: []int32{0, 1, 4}, ev: []int32{1, 2, 5}}

func TestComponentsLabelsBySmallestID(t *testing.T) {
	require.Equal(t, []int32{0, 0, 0, 3, 4, 4}, tiny.components())
}

func TestCSRAndBFS(t *testing.T) {
	off, adj := tiny.csr()
	require.Equal(t, []int32{0, 1, 3, 4, 4, 5, 6}, off)
	require.Equal(t, []int32{0, 2}, adj[off[1]:off[2]], "vertex 1's neighbours")
	require.Equal(t, []int32{0, 1, 2, -1, -1, -1}, tiny.bfs(0))
}

func TestRandomGraph(t *testing.T) {
	g := randomGraph(newRand(3), 50, 200)
	for i := range g.eu {
		require.True(t, g.eu[i] < g.ev[i] && g.ev[i] < 50,
			"edge %d = (%d, %d): want lower endpoint first, no self-loop", i, g.eu[i], g.ev[i])
	}
	h := randomGraph(newRand(3), 50, 200)
	require.Equal(t, g.eu, h.eu, "same seed, same graph")
	require.Equal(t, g.ev, h.ev, "same seed, same graph")
}

func TestCheckColoring(t *testing.T) {
	require.NoError(t, tiny.checkColoring([]int32{1, 2, 1, 1, 1, 2}))
	require.Error(t, tiny.checkColoring([]int32{1, 1, 2, 1, 1, 2}), "edge (0, 1) with equal colors")
	require.Error(t, tiny.checkColoring([]int32{1, 2, 1, 0, 1, 2}), "uncolored vertex")
}
