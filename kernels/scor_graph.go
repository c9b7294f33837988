package kernels

import (
	"fmt"
	"math/rand/v2"
)

// A graph is an undirected graph as edge lists, each edge with its lower
// endpoint first and no self-loops, as ScoR's graph inputs are.
type graph struct {
	v      int
	eu, ev []int32
}

// randomGraph draws a graph of v vertices and e edges.
func randomGraph(r *rand.Rand, v, e int) graph {
	g := graph{v: v, eu: make([]int32, e), ev: make([]int32, e)}
	for i := range e {
		a, b := r.Int32N(int32(v)), r.Int32N(int32(v-1))
		if b >= a {
			b++
		}
		g.eu[i], g.ev[i] = min(a, b), max(a, b)
	}
	return g
}

// components returns each vertex's component label, the smallest vertex
// id in its component.
func (g graph) components() []int32 {
	parent := make([]int32, g.v)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i := range g.eu {
		a, b := find(g.eu[i]), find(g.ev[i])
		parent[max(a, b)] = min(a, b)
	}
	out := make([]int32, g.v)
	for i := range out {
		out[i] = find(int32(i))
	}
	return out
}

// checkColoring returns an error unless every vertex has a positive color
// and the endpoints of every edge differ.
func (g graph) checkColoring(color []int32) error {
	for v, c := range color {
		if c <= 0 {
			return fmt.Errorf("vertex %d has color %d, want > 0", v, c)
		}
	}
	for i := range g.eu {
		if u, v := g.eu[i], g.ev[i]; color[u] == color[v] {
			return fmt.Errorf("edge %d (%d, %d): both endpoints have color %d", i, u, v, color[u])
		}
	}
	return nil
}
