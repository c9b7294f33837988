package kernels

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSameAll(t *testing.T) {
	require.NoError(t, sameAll("x", []int32{1, 2}, []int32{1, 2}))
	require.EqualError(t, sameAll("x", []int32{1, 3}, []int32{1, 2}), "x[1] = 3, want 2")
	require.Error(t, sameAll("x", []int32{1}, []int32{1, 2}), "length mismatch")
}

func TestRandSeeded(t *testing.T) {
	a, b := randInt32s(newRand(7), 100, 10), randInt32s(newRand(7), 100, 10)
	require.Equal(t, a, b, "same seed")
	require.Less(t, slices.Max(a), int32(10))
	require.GreaterOrEqual(t, slices.Min(a), int32(0))
	require.NotEqual(t, a, randInt32s(newRand(8), 100, 10), "different seeds, same input")
}
