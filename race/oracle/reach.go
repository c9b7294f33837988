package oracle

// reach is the reachability of a graph: for each node, the bitset of the
// nodes with a path to it.
type reach struct {
	words int
	bits  []uint64 // node i's ancestors are bits[i*words : (i+1)*words]
}

// closure computes the ancestors of every node. Nodes are numbered in a
// topological order, so each node's predecessors are complete before it.
func closure(g *graph) *reach {
	n := len(g.preds)
	r := &reach{words: (n + 63) / 64}
	r.bits = make([]uint64, n*r.words)
	for i, ps := range g.preds {
		row := r.row(i)
		for _, p := range ps {
			for k, w := range r.row(int(p)) {
				row[k] |= w
			}
			row[p/64] |= 1 << (p % 64)
		}
	}
	return r
}

// row returns node i's ancestor bitset.
func (r *reach) row(i int) []uint64 { return r.bits[i*r.words : (i+1)*r.words] }

// before reports whether node a happens before node b.
func (r *reach) before(a, b int) bool { return r.row(b)[a/64]&(1<<(a%64)) != 0 }
