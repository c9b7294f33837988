package scope_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/scope"
)

func TestCommon(t *testing.T) {
	t.Parallel()
	a := scope.Place{Thread: 5, Warp: 0, Block: 0}
	cases := []struct {
		b    scope.Place
		want scope.Scope
	}{
		{a, scope.Thread},
		{scope.Place{Thread: 6, Warp: 0, Block: 0}, scope.Warp},
		{scope.Place{Thread: 40, Warp: 1, Block: 0}, scope.Block},
		{scope.Place{Thread: 300, Warp: 9, Block: 1}, scope.Device},
	}
	for _, c := range cases {
		require.Equal(t, c.want, scope.Common(a, c.b), "%+v", c.b)
		require.Equal(t, c.want, scope.Common(c.b, a), "symmetric %+v", c.b)
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	a := scope.Place{Thread: 0, Warp: 0, Block: 0}
	other := scope.Place{Thread: 256, Warp: 8, Block: 1}
	sameBlock := scope.Place{Thread: 33, Warp: 1, Block: 0}
	require.False(t, scope.Block.Covers(a, other), "block scope between blocks")
	require.True(t, scope.Device.Covers(a, other))
	require.True(t, scope.Block.Covers(a, sameBlock))
	require.False(t, scope.Warp.Covers(a, sameBlock))
}

// Example shows the question every scoped operation raises: is its scope
// wide enough for the two threads that communicate through it?
func Example() {
	writer := scope.Place{Thread: 0, Warp: 0, Block: 0}
	reader := scope.Place{Thread: 300, Warp: 9, Block: 1}
	for _, s := range []scope.Scope{scope.Block, scope.Device} {
		fmt.Printf("%v covers both: %v\n", s, s.Covers(writer, reader))
	}
	fmt.Println("narrowest common scope:", scope.Common(writer, reader))
	// Output:
	// block covers both: false
	// device covers both: true
	// narrowest common scope: device
}
