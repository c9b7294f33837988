package bench

import "runtime/metrics"

// heapAllocs is the runtime metric of the bytes allocated on the heap
// since the process started, freed or not.
const heapAllocs = "/gc/heap/allocs:bytes"

// allocated returns the bytes the process has allocated on the heap so
// far. Read around a launch, the difference is what the launch and its
// detector allocated (and anything else the process allocated meanwhile,
// which during a benchmark is little): a count that, unlike time, does
// not move with the machine's load.
func allocated() uint64 {
	s := []metrics.Sample{{Name: heapAllocs}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
