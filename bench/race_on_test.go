//go:build race

package bench_test

// raceEnabled: the tests run under the race detector, whose memory grows
// with every launch (see TestConfigsSameVerdicts).
const raceEnabled = true
