//go:build race

package isolate_test

const raceEnabled = true
