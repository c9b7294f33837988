//go:build !long

package kernels_test

import "time"

// largeShift is how many times smaller than full size the large-grid
// group's tests run: 2^10 without the long build tag, a few thousand
// threads, so that the package's tests stay fast.
const largeShift = 10

// testTimeout bounds a configuration's launches.
const testTimeout = time.Minute
