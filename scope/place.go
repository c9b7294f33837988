package scope

// A Place locates a thread: the device it runs on, the launch it belongs
// to, and the global, linear ids of the thread, its warp and its block in
// that launch. Thread, warp and block ids are compared only between two
// Places of one launch on one device: block 0 of one launch is not block 0
// of another.
//
// Device and Launch are numbers that name the device and the launch (the
// runtime uses gpu.Device.ID and gpu.Grid.ID, which count from 1). Their
// zero values mean "the one device" and "the one launch", so Places built
// without them all belong to one launch on one device, as they did before
// the fields existed.
type Place struct {
	Device uint64 // the device's number; 0 for the one device
	Launch uint64 // the launch's number on its device; 0 for the one launch
	Thread int    // global linear thread id in the launch
	Warp   int    // global warp id in the launch
	Block  int    // linear block id in the launch
}

// SameLaunch reports whether a and b are threads of one launch on one
// device, so that their thread, warp and block ids may be compared.
func (a Place) SameLaunch(b Place) bool { return a.Device == b.Device && a.Launch == b.Launch }

// Common returns the narrowest scope that contains both a and b. Between
// two threads of one launch it is [Thread] for the same thread, [Warp] for
// two lanes of one warp, [Block] for one block and [Device] otherwise.
// Threads of two launches on one device share no warp or block, however
// their ids compare, so their narrowest common scope is [Device]; threads
// of two devices share only [System].
func Common(a, b Place) Scope {
	switch {
	case a.Device != b.Device:
		return System
	case a.Launch != b.Launch:
		return Device
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
// s includes the narrowest scope that contains both. So warp and block
// scope cover two threads only of one launch, device scope only threads
// of one device (of any of its launches), and system scope any two.
func (s Scope) Covers(a, b Place) bool { return s.Includes(Common(a, b)) }
