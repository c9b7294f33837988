package race

// framePCs stores the return addresses of the frames above its caller's,
// following frame pointers (a few ns, where runtime.Callers unwinds for
// hundreds), and returns how many it stored.
//
//go:noescape
func framePCs(buf *[framePCsLen]uintptr) int
