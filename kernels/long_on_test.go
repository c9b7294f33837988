//go:build long

package kernels_test

// largeShift is how many times smaller than full size the large-grid
// group's tests run: under the long build tag (go test -tags long), at
// full size.
const largeShift = 0
