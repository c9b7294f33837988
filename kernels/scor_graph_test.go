package kernels

import (
	"slices"
	"testing"
)

// A path 0-1-2, an isolated 3, and an edge 4-5.
var tiny = graph{v: 6, eu: []int32{0, 1, 4}, ev: []int32{1, 2, 5}}

func TestComponentsLabelsBySmallestID(t *testing.T) {
	if got, want := tiny.components(), []int32{0, 0, 0, 3, 4, 4}; !slices.Equal(got, want) {
		t.Errorf("components = %v, want %v", got, want)
	}
}

func TestCSRAndBFS(t *testing.T) {
	off, adj := tiny.csr()
	if !slices.Equal(off, []int32{0, 1, 3, 4, 4, 5, 6}) || !slices.Equal(adj[off[1]:off[2]], []int32{0, 2}) {
		t.Errorf("csr = %v, %v", off, adj)
	}
	if got, want := tiny.bfs(0), []int32{0, 1, 2, -1, -1, -1}; !slices.Equal(got, want) {
		t.Errorf("bfs = %v, want %v", got, want)
	}
}

func TestRandomGraph(t *testing.T) {
	g := randomGraph(newRand(3), 50, 200)
	for i := range g.eu {
		if g.eu[i] >= g.ev[i] || g.ev[i] >= 50 {
			t.Fatalf("edge %d = (%d, %d): want lower endpoint first, no self-loop", i, g.eu[i], g.ev[i])
		}
	}
	if h := randomGraph(newRand(3), 50, 200); !slices.Equal(g.eu, h.eu) || !slices.Equal(g.ev, h.ev) {
		t.Error("same seed, different graph")
	}
}

func TestCheckColoring(t *testing.T) {
	if err := tiny.checkColoring([]int32{1, 2, 1, 1, 1, 2}); err != nil {
		t.Error(err)
	}
	if err := tiny.checkColoring([]int32{1, 1, 2, 1, 1, 2}); err == nil {
		t.Error("edge (0, 1) with equal colors passed")
	}
	if err := tiny.checkColoring([]int32{1, 2, 1, 0, 1, 2}); err == nil {
		t.Error("uncolored vertex passed")
	}
}
