//go:build !long

package device_test

// long is set by the long build tag (go test -tags long): the tests add
// the big size, 2^20+3 elements, to every primitive's sizes.
const long = false
