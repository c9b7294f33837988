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

// TestCoversAcrossLaunchesAndDevices: ids compare only within one launch
// on one device. The same block of another launch is not covered by
// block scope, nor the same warp by warp scope; device scope covers any
// two launches of one device but not two devices, which only system
// scope covers.
func TestCoversAcrossLaunchesAndDevices(t *testing.T) {
	t.Parallel()
	a := scope.Place{Device: 1, Launch: 1, Thread: 3, Warp: 0, Block: 0}
	cases := []struct {
		name   string
		b      scope.Place
		narrow scope.Scope // the narrowest scope that covers a and b
	}{
		{"same thread", a, scope.Thread},
		{"same block, same launch", scope.Place{Device: 1, Launch: 1, Thread: 40, Warp: 1, Block: 0}, scope.Block},
		{"same thread ids, other launch", scope.Place{Device: 1, Launch: 2, Thread: 3, Warp: 0, Block: 0}, scope.Device},
		{"same block, other launch", scope.Place{Device: 1, Launch: 2, Thread: 40, Warp: 1, Block: 0}, scope.Device},
		{"other block, other launch", scope.Place{Device: 1, Launch: 2, Thread: 300, Warp: 9, Block: 1}, scope.Device},
		{"same ids, other device", scope.Place{Device: 2, Launch: 1, Thread: 3, Warp: 0, Block: 0}, scope.System},
		{"other device and launch", scope.Place{Device: 2, Launch: 7, Thread: 9, Warp: 0, Block: 0}, scope.System},
	}
	for _, c := range cases {
		require.Equal(t, c.narrow, scope.Common(a, c.b), c.name)
		require.Equal(t, c.narrow, scope.Common(c.b, a), "symmetric: "+c.name)
		for s := scope.Thread; s <= scope.System; s++ {
			require.Equal(t, s >= c.narrow, s.Covers(a, c.b), "%s: %v", c.name, s)
		}
	}
}

// TestSameLaunch: zero Device and Launch fields name the one device and
// launch, so Places built without them stay comparable.
func TestSameLaunch(t *testing.T) {
	t.Parallel()
	require.True(t, scope.Place{Thread: 1}.SameLaunch(scope.Place{Thread: 2, Block: 3}))
	require.True(t, scope.Place{Device: 2, Launch: 5}.SameLaunch(scope.Place{Device: 2, Launch: 5, Thread: 1}))
	require.False(t, scope.Place{Device: 2, Launch: 5}.SameLaunch(scope.Place{Device: 2, Launch: 6}))
	require.False(t, scope.Place{Device: 1, Launch: 5}.SameLaunch(scope.Place{Device: 2, Launch: 5}))
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
