package bench

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMatrixOrder: each run orders the configurations by a permutation,
// the same for the same seed and run; over the runs of a matrix, every
// configuration comes first, comes last, and follows every other one,
// which rotating one order never gave (each followed the same one).
func TestMatrixOrder(t *testing.T) {
	const n, runs = 6, 20
	m := Matrix{Seed: 1}
	first, last := map[int]bool{}, map[int]bool{}
	after := map[[2]int]bool{}
	for rep := -1; rep < runs; rep++ {
		o := m.order(rep, n)
		require.Equal(t, o, m.order(rep, n), "run %d: the same seed gives the same order", rep)
		sorted := slices.Clone(o)
		slices.Sort(sorted)
		require.Equal(t, []int{0, 1, 2, 3, 4, 5}, sorted, "run %d: a permutation", rep)
		first[o[0]], last[o[n-1]] = true, true
		for j := 1; j < n; j++ {
			after[[2]int{o[j-1], o[j]}] = true
		}
	}
	require.Len(t, first, n)
	require.Len(t, last, n)
	require.Len(t, after, n*(n-1), "every configuration right after every other")
	require.NotEqual(t, m.order(0, n), Matrix{Seed: 2}.order(0, n), "another seed, another order")
}
