//go:build long

package kernels_test

import "time"

// largeShift is how many times smaller than full size the large-grid
// group's tests run: under the long build tag (go test -tags long), at
// full size.
const largeShift = 0

// testTimeout bounds a configuration's launches: a full-size large kernel
// under the detector takes minutes on a loaded machine.
const testTimeout = 10 * time.Minute
