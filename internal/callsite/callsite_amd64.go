package callsite

// Return stores in pcs the return address of the function that called
// Return (a PC in its caller) and the return address of that caller, as
// runtime.Callers would report them: pass them to runtime.CallersFrames to
// resolve file:line. The function calling Return must not be inlined into
// its caller, or the addresses are one frame further up; a zero entry
// means the chain ended.
//
// On amd64 it follows frame pointers; elsewhere it calls runtime.Callers.
//
//go:noescape
func Return(pcs *[Len]uintptr)

// Walk stores in pcs the return addresses of the function that called
// Walk and of its callers, up the frame-pointer chain, and returns how many
// it stored: a call path from a few loads, with no unwinding tables. It
// also returns a hash of the addresses stored, the same for the same
// path and cheaper than the caller's loading them back to hash them:
// each address rotated left by 7 bits per address stored after it,
// all of them exclusive-ored. Where frame pointers are not walked it
// stores none and returns 0, 0, and callers fall back to
// runtime.Callers.
//
//go:noescape
func Walk(pcs *[WalkLen]uintptr) (n int, hash uint64)

// WalkLong is [Walk] with room for LongLen addresses: a call path from
// deep below the frame whose site it names.
//
//go:noescape
func WalkLong(pcs *[LongLen]uintptr) (n int, hash uint64)
