//go:build !amd64

package callsite

import "runtime"

// Return stores in pcs the return address of the function that called
// Return and that of its caller; see the amd64 version for the contract.
// Here it is runtime.Callers, skipping itself and its caller's frame.
//
//go:noinline
func Return(pcs *[Len]uintptr) {
	*pcs = [Len]uintptr{}
	runtime.Callers(3, pcs[:])
}

// Walk stores nothing and returns 0, 0 here: without a frame-pointer walk
// a call path is no cheaper than runtime.Callers, which callers fall back
// to.
func Walk(pcs *[WalkLen]uintptr) (n int, hash uint64) { return 0, 0 }

// WalkLong stores nothing and returns 0, 0 here, as Walk does.
func WalkLong(pcs *[LongLen]uintptr) (n int, hash uint64) { return 0, 0 }
