//go:build !race

package bench_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = false
