package device_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
)

// big is the size that takes several levels of partials: only with the
// long build tag, and not under -short, for the module's tests stay fast.
const big = 1<<20 + 3

// sizes returns the awkward sizes each primitive is tested on: empty, one
// element, around a thread's 32 items and 32 threads' 1024 (where the
// launches that combine the threads' values add a level), not a multiple
// of the block or of a thread's items, several blocks, and unless -short
// many blocks, and big under the long build tag.
func sizes(t *testing.T) []int {
	s := []int{0, 1, 31, 32, 33, 37, 1024, 1025, 2048, 5000}
	if !testing.Short() {
		s = append(s, 70_001)
	}
	if long && !testing.Short() {
		s = append(s, big)
	}
	return s
}

// checked returns a device, the launch options that put every launch of
// a primitive under a race detector, and a function that fails t with
// the detector's reports.
func checked(t *testing.T) (*gpu.Device, gpu.LaunchConfig, func()) {
	t.Helper()
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(t, err)
	det := racetest.New()
	return d, gpu.LaunchConfig{Observer: det, Block: gpu.Dim3{X: 32}}, func() { // small blocks: three levels of partials at 70_001
		t.Helper()
		assert.Empty(t, reports(det), "races")
	}
}

func reports(det *race.Detector) []string {
	var out []string
	for _, r := range det.Reports() {
		out = append(out, r.String())
	}
	return out
}

// sortSizes are smaller sizes for the sorts, whose sixteen passes over
// 64-bit keys under the detector take longest.
func sortSizes(t *testing.T) []int {
	s := []int{0, 1, 33, 37, 2048}
	if !testing.Short() {
		s = append(s, 5000)
	}
	if long && !testing.Short() {
		s = append(s, 70_001, big)
	}
	return s
}

var ctx = context.Background()

func randInt32s(n int, seed uint64, lim int32) []int32 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	out := make([]int32, n)
	for i := range out {
		out[i] = r.Int32N(lim) - lim/2
	}
	return out
}
