package kernels

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
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
	require.Equal(t, [3]int32{0, 253, 0}, fields(tr.root(-1, 254)), "seed -1: the byte before 254")
}

// TestUTSRootSeeds: input seeds 1 to 4 keep the roots they always had,
// every seed of a period gets its own byte, and none is a multiple of 5,
// whose trees are bare chains.
func TestUTSRootSeeds(t *testing.T) {
	tr := utsTree{maxHeight: 6, avgChildren: 3}
	seen := map[int]int64{}
	for n := int64(1); n <= 204; n++ {
		s := tr.rootSeed(n)
		require.True(t, s > 0 && s < 255 && s%5 != 0, "seed %d: root byte %d", n, s)
		require.NotContains(t, seen, s, "seeds %d and %d share root byte %d", seen[s], n, s)
		seen[s] = n
	}
	require.Equal(t, []int{1, 2, 3, 4, 6, 1}, []int{tr.rootSeed(1), tr.rootSeed(2), tr.rootSeed(3), tr.rootSeed(4), tr.rootSeed(5), tr.rootSeed(205)})
	chain := utsTree{maxHeight: 6, avgChildren: 1}
	require.Equal(t, 7, chain.rootSeed(7), "a tree of one child a node has no byte to avoid")
}

// TestUTSTreesBranchOnEverySeed: at both sizes, for every input seed of a
// period, most blocks' trees are more than a chain.
func TestUTSTreesBranchOnEverySeed(t *testing.T) {
	for _, c := range []struct {
		tr     utsTree
		blocks int
	}{{utsTree{maxHeight: 6, avgChildren: 3}, 8}, {utsTree{maxHeight: 9, avgChildren: 3}, 60}} {
		for n := int64(1); n <= 204; n++ {
			branching := 0
			for b := range c.blocks {
				if nodes, _ := c.tr.count(c.tr.root(n, b)); nodes > c.tr.maxHeight {
					branching++
				}
			}
			require.Greater(t, branching, c.blocks/2, "height %d, seed %d: blocks whose tree branches", c.tr.maxHeight, n)
		}
	}
}

// TestUTSStealsOnEverySeed: under both executors, on input seeds 1 to
// 10 (5 and 10 grew bare chains once, and the search then never used a
// steal stack, so that the suite could not show the stealing races), the
// search pushes nodes to the steal stacks and counts the whole forest.
func TestUTSStealsOnEverySeed(t *testing.T) {
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		for seed := int64(1); seed <= 10; seed++ {
			d := testDevice(t)
			u, err := newUTS(d, Params{Seed: seed})
			require.NoError(t, err)
			var launches int
			launch := launchEach(d, &launches, func(c *gpu.LaunchConfig) { c.Executor = ex })
			require.NoError(t, single(coopCfg("uts", u.blocks, u.threads), u.search)(context.Background(), launch), "%v, seed %d", ex, seed)
			require.NoError(t, u.check(), "%v, seed %d", ex, seed)
			pushed := slices.ContainsFunc(u.steal.Host(), func(n int32) bool { return n != 0 })
			require.True(t, pushed, "%v, seed %d: a node reached a steal stack", ex, seed)
		}
	}
}
