package gen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/gen"
)

// TestWordName: the global buffer's elements are named as data, flag or
// lock words, and a shared word names its block.
func TestWordName(t *testing.T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	g := gpu.Alloc[uint32](d, "g", 8).Memory()
	assert.Equal(t, "x[3]", gen.WordName(g, 3))
	assert.Equal(t, "f[1]", gen.WordName(g, 5))
	assert.Equal(t, "l[0]", gen.WordName(g, 6))
	shared := &gpu.Memory{Name: "s", Space: gpu.SharedSpace, Block: 2}
	assert.Equal(t, "s[1] of block 2", gen.WordName(shared, 1))
}
