// Package callsite reads the return addresses of the calling function and
// its caller: the cheapest identity of "where was I called from", a few ns
// where runtime.Callers unwinds for about a hundred.
package callsite

// Len is how many return addresses [Return] stores.
const Len = 2

// WalkLen is how many return addresses [Walk] stores at most.
const WalkLen = 8
