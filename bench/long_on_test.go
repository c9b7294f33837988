//go:build long

package bench_test

// long is set by the long build tag (go test -tags long): the long tables
// run every configuration of the suite instead of a subset.
const long = true
