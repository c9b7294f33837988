// Package callsite reads the return addresses of the calling function and
// its caller: the cheapest identity of "where was I called from", two
// loads from the frame-pointer chain where runtime.Callers consults the
// unwinding tables for every frame.
package callsite

// Len is how many return addresses [Return] stores.
const Len = 2

// WalkLen is how many return addresses [Walk] stores at most.
const WalkLen = 6

// LongLen is how many return addresses [WalkLong] stores at most.
const LongLen = 16
