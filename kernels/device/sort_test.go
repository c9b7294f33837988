package device_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels/device"
)

func TestSortKeys(t *testing.T) {
	for _, n := range sortSizes(t) {
		testSortKeys(t, n, func(r *rand.Rand) uint32 { return r.Uint32() })
		if n <= 37 || !testing.Short() {
			testSortKeys(t, n, func(r *rand.Rand) int64 { return r.Int64() - r.Int64() })
		}
	}
	testSortKeys(t, 600, func(r *rand.Rand) int64 { return r.Int64() - r.Int64() }) // sixteen passes over five blocks
	testSortKeys(t, 1000, func(r *rand.Rand) int32 { return r.Int32N(7) - 3 })
}

func testSortKeys[K gpu.Integer](t *testing.T, n int, gen func(*rand.Rand) K) {
	t.Helper()
	d, cfg, done := checked(t)
	cfg.Block.X = 128 // fewer blocks a pass than the other tests' 32
	r := rand.New(rand.NewPCG(10, uint64(n)))
	host := make([]K, n)
	for i := range host {
		host[i] = gen(r)
	}
	keys := gpu.FromHost(d, "keys", host)
	require.NoError(t, device.SortKeys(ctx, d, cfg, keys))
	slices.Sort(host)
	assert.Equal(t, host, keys.Host(), "n=%d %T", n, host)
	done()
}

// TestSortPairs sorts few distinct keys, with each value its original
// index, so a sort that is not stable shows.
func TestSortPairs(t *testing.T) {
	for _, n := range sortSizes(t) {
		d, cfg, done := checked(t)
		cfg.Block.X = 128 // fewer blocks a pass than the other tests' 32
		host := randInt32s(n, 11, 20)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i)
		}
		keys, values := gpu.FromHost(d, "keys", host), gpu.FromHost(d, "values", vals)
		require.NoError(t, device.SortPairs(ctx, d, cfg, keys, values))
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return int(host[a] - host[b]) })
		wantK, wantV := make([]int32, n), make([]float64, n)
		for i, j := range idx {
			wantK[i], wantV[i] = host[j], float64(j)
		}
		assert.Equal(t, wantK, keys.Host(), "n=%d keys", n)
		assert.Equal(t, wantV, values.Host(), "n=%d values", n)
		done()
	}
}

func TestSortErrors(t *testing.T) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	keys := gpu.Alloc[uint32](d, "keys", 5)
	err := device.SortPairs(ctx, d, gpu.LaunchConfig{}, keys, gpu.Alloc[int32](d, "values", 4))
	assert.EqualError(t, err, "device.SortPairs: keys has length 5 but values has length 4; they must agree")
}

// TestSortSmallBlocks sorts with blocks smaller than the radix and than a
// warp, which the sorts' launches need nothing of.
func TestSortSmallBlocks(t *testing.T) {
	d, cfg, done := checked(t)
	cfg.Block.X = 3
	host := randInt32s(1000, 13, 1<<30)
	keys := gpu.FromHost(d, "keys", host)
	require.NoError(t, device.SortKeys(ctx, d, cfg, keys))
	slices.Sort(host)
	assert.Equal(t, host, keys.Host())
	done()
}
