package scope

// A Place locates a thread in a launch by the global, linear ids of the
// thread, its warp and its block. Two Places are compared id by id, so ids
// must come from the same launch.
type Place struct {
	Thread int // global linear thread id
	Warp   int // global warp id
	Block  int // linear block id
}

// Common returns the narrowest scope that contains both a and b: [Thread] for
// the same thread, [Warp] for two lanes of one warp, [Block] for one block and
// [Device] otherwise. One launch runs on one device, so [System] is never
// needed between two of its threads.
func Common(a, b Place) Scope {
	switch {
	case a.Thread == b.Thread:
		return Thread
	case a.Warp == b.Warp:
		return Warp
	case a.Block == b.Block:
		return Block
	}
	return Device
}

// Covers reports whether an operation of scope s orders threads a and b:
// s includes the narrowest scope that contains both.
func (s Scope) Covers(a, b Place) bool { return s.Includes(Common(a, b)) }
