package gpu

import "fmt"

// Copy copies src into dst, two buffers or views of buffers (see
// [Buffer.Slice]) of one device, like cudaMemcpy device-to-device. It
// returns an error, and copies nothing, unless they have the same length
// and their memories belong to the same device. The two may overlap (two
// views of one memory): Copy then copies as Go's copy does, as if
// through a temporary, where cudaMemcpy's result is undefined.
//
// Copy is a host operation, as cudaMemcpy is: the device's observer, if
// it is a [HostObserver], learns of it as two host accesses, a read of
// src, then a write of dst, so a detector checks them against the
// launches running meanwhile as it checks [Buffer.CopyIn] and
// [Buffer.CopyOut]. Each element is moved with an atomic load and store,
// so a kernel racing with the copy makes no Go data race.
func Copy[T Elem](dst, src Buffer[T]) error {
	switch {
	case dst.n != src.n:
		return fmt.Errorf("gpu: Copy of %s of length %d into %s of length %d", src.describe(), src.n, dst.describe(), dst.n)
	case dst.n == 0:
		return nil
	case src.hostReach("Copy") != nil:
		return src.hostReach("Copy")
	case dst.hostReach("Copy") != nil:
		return dst.hostReach("Copy")
	case dst.m.dev != src.m.dev:
		return fmt.Errorf("gpu: Copy of %s on %v into %s on %v: cudaMemcpy device-to-device copies within one device",
			src.describe(), src.m.dev, dst.describe(), dst.m.dev)
	}
	observeHost(src.m, src.lo, src.n, false, "Copy")
	observeHost(dst.m, dst.lo, dst.n, true, "Copy")
	if dst.m == src.m && dst.lo > src.lo { // overlapping forwards: copy from the end
		for i := dst.n - 1; i >= 0; i-- {
			storeBits[T](dst.ptr(i), loadBits[T](src.ptr(i)))
		}
		return nil
	}
	for i := range dst.n {
		storeBits[T](dst.ptr(i), loadBits[T](src.ptr(i)))
	}
	return nil
}
