package gorace

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/kernels"
)

// TestTwinsMatchKernels: one twin per large kernel, in the group's order.
func TestTwinsMatchKernels(t *testing.T) {
	var want, got []string
	for _, k := range kernels.Large() {
		want = append(want, k.Name)
	}
	for _, tw := range Twins() {
		got = append(got, tw.Name)
	}
	require.Equal(t, want, got)
}

// TestTwins checks each twin at a small size: its output is wrong before
// it runs (the check can fail) and right after.
func TestTwins(t *testing.T) {
	for _, tw := range Twins() {
		t.Run(tw.Name, func(t *testing.T) {
			j := tw.Setup(8)
			require.Error(t, j.Check(), "before the work")
			j.Do()
			require.NoError(t, j.Check())
		})
	}
}

// TestForBlocks: every block is called once, with fewer blocks than
// processors too, and none for none.
func TestForBlocks(t *testing.T) {
	for _, n := range []int{0, 1, 3, 1000} {
		calls := make([]atomic.Int32, n)
		forBlocks(n, func(b int) { calls[b].Add(1) })
		for b := range calls {
			assert.EqualValues(t, 1, calls[b].Load(), "block %d of %d", b, n)
		}
	}
}
