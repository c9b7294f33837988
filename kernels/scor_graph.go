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

// csr returns the graph's adjacency in compressed sparse rows: the
// neighbours of v are adj[off[v]:off[v+1]], each edge listed both ways.
func (g graph) csr() (off, adj []int32) {
	off = make([]int32, g.v+1)
	for i := range g.eu {
		off[g.eu[i]+1]++
		off[g.ev[i]+1]++
	}
	for v := range g.v {
		off[v+1] += off[v]
	}
	adj = make([]int32, len(g.eu)*2)
	next := append([]int32(nil), off[:g.v]...)
	for i := range g.eu {
		u, v := g.eu[i], g.ev[i]
		adj[next[u]], adj[next[v]] = v, u
		next[u]++
		next[v]++
	}
	return off, adj
}

// bfs returns the distance from src of every vertex, -1 if unreachable.
func (g graph) bfs(src int) []int32 {
	off, adj := g.csr()
	dist := make([]int32, g.v)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	for q := []int32{int32(src)}; len(q) > 0; q = q[1:] {
		u := q[0]
		for _, v := range adj[off[u]:off[u+1]] {
			if dist[v] < 0 {
				dist[v] = dist[u] + 1
				q = append(q, v)
			}
		}
	}
	return dist
}
