package iguard

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestStampLayout: every op, order and scope has a class of its own that
// fits the class field, and a stamp gives back the thread and generation
// it was made of, with the lock bit clear up to the last thread that has
// a stamp.
func TestStampLayout(t *testing.T) {
	seen := map[uint64]string{}
	for op := gpu.OpLoad; op <= gpu.OpDec; op++ {
		for order := gpu.Weak; order <= gpu.Release; order++ {
			for s := scope.Thread; s <= scope.System; s++ {
				c := classOf(op, order, s)
				name := op.String() + "/" + order.String() + "/" + s.String()
				require.Less(t, c, uint64(1)<<stampClassBits, name)
				require.NotContains(t, seen, c, "%s shares its class with %s", name, seen[c])
				seen[c] = name
			}
		}
	}
	for _, gid := range []int{0, 1, 12345, stampThreads - 1} {
		st := newStamp(gid, classOf(gpu.OpDec, gpu.Release, scope.System), ^uint32(0))
		require.Equal(t, gid, st.thread())
		require.Equal(t, ^uint32(0), st.gen())
		require.Zero(t, st&locked, "thread %d's stamp has the lock bit", gid)
	}
	require.Equal(t, -1, stamp(0).thread(), "no stamp belongs to no thread")
}

// TestCoalesceKeyLayout: the coalescing key's fields do not overlap, and
// the last warp that gets a key keeps the top bit clear.
func TestCoalesceKeyLayout(t *testing.T) {
	epochs := uint64(1)<<keyEpochBits - 1
	class := (uint64(1)<<stampClassBits - 1) << keyEpochBits
	warp := uint64(keyWarps) << keyWarpShift
	require.Zero(t, epochs&class|class&warp|epochs&warp, "fields overlap")
	require.Less(t, warp|class|epochs, uint64(1)<<63)
}
