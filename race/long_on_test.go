//go:build long

package race_test

// long is set by the long build tag (go test -tags long): the scale test
// runs its full 2^20-thread launch.
const long = true
