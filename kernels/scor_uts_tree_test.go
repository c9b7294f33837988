package kernels

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// fields returns nodeFields' three values as an array, to compare at once.
func fields(n int32) [3]int32 {
	h, s, num := nodeFields(n)
	return [3]int32{int32(h), int32(s), int32(num)}
}

func TestUTSTree(t *testing.T) {
	tr := utsTree{maxHeight: 3, avgChildren: 3}
	n := packNode(1, 200, 7)
	require.Equal(t, [3]int32{1, 200, 7}, fields(n), "nodeFields(packNode(1, 200, 7))")
	// (200·7+5) mod 255 = 130; 130 mod 5 + 1 = 1 child at height 2, a leaf.
	require.Equal(t, 1, tr.children(n))
	require.Equal(t, [3]int32{2, 130, 1}, fields(tr.child(n, 0)))
	nodes, leaves := tr.count(n)
	require.Equal(t, [2]int{2, 1}, [2]int{nodes, leaves}, "nodes, leaves")
	require.Equal(t, [3]int32{0, 254, 0}, fields(tr.root(-1, 254)))
}
