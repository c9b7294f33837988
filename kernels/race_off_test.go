//go:build !race

package kernels_test

// raceSlowdown stretches launch deadlines under the race detector; without
// it deadlines stand as written.
const raceSlowdown = 1
