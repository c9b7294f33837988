package gpu

import "errors"

// ErrDeviceClosed is the cause of a launch refused because its device was
// closed (see [Device.Close]).
var ErrDeviceClosed = errors.New("gpu: device closed")

// Close ends the goroutines the device keeps between its launches: the
// fibers of the Fibers executor and the goroutines that ran its block
// slots and the Goroutines executor's threads, which the device reuses from launch to launch so that a
// program's memory stays flat however many launches it makes, under the
// race detector too. After Close, Launch returns an error wrapping
// [ErrDeviceClosed]; the device's buffers stay usable from the host.
// Close is idempotent and safe to call concurrently with launches: a
// launch already running when Close is called finishes, and ends the
// fibers and goroutines it used when it returns.
//
// The end of every idle fiber and goroutine synchronizes before Close
// returns: once Close has returned, and every launch that was running has
// returned, no goroutine of the device remains (goleak passes). A device
// dropped without Close ends them when the garbage collector finds it
// unreachable; Close does so at once. Under the race detector, the race
// runtime keeps for good what it held for each fiber that ends, so a
// program that makes many devices costs memory with each: reuse one.
//
// Close returns an error only for a nil Device or one not made by
// [NewDevice].
func (d *Device) Close() error {
	switch {
	case d == nil:
		return errors.New("gpu: Close of a nil *Device")
	case d.fibers == nil:
		return errors.New("gpu: Close of a Device not made by NewDevice")
	}
	d.fibers.close()
	d.workers.close()
	return nil
}
