//go:build race

package kernels_test

// raceSlowdown stretches launch deadlines under the race detector, whose
// instrumented atomics make a correct kernel several times slower; a
// deadline is there to end a hang, not to time a slow machine.
const raceSlowdown = 5
