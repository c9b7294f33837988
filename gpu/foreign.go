package gpu

import "fmt"

// A ForeignError reports an access to memory that another device
// allocated: a buffer of one device used in a launch on another, which on
// a GPU would read or write an address that means nothing there. It stops
// the thread, as an out-of-range index does, before the access reaches
// memory or an Observer.
type ForeignError struct {
	Mem    *Memory // the buffer, which names its device (see Memory.Device)
	Index  int
	Op     Op
	Device *Device // the device the thread ran on
}

// Error names the operation, the buffer and both devices.
func (e *ForeignError) Error() string {
	return fmt.Sprintf("%v index %d of %v, allocated on %v, in a launch on %v", e.Op, e.Index, e.Mem, e.Mem.Device(), e.Device)
}
