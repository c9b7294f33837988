package gpu

// A HostObserver is an [Observer] that also watches the host's accesses
// to device memory: [Buffer.CopyIn], [Buffer.CopyOut], [Buffer.Fill] and
// [Copy], and what calls them ([FromHost], [Buffer.Host]), on whole
// buffers or on views (see [Buffer.Slice]). Host copies belong to
// no launch, so the runtime calls HostAccess only on a device's observer
// (DeviceConfig.Observer) that implements HostObserver, for the host
// accesses to memories allocated on that device; a launch's own
// LaunchConfig.Observer is not told of them.
//
// HostAccess is called on the goroutine that called the host function,
// once per call ([Copy]: twice, its source read, then its destination
// written), before the call touches memory and after it checked its
// arguments: a call that fails, or that copies no element, reports
// nothing. Calls from several goroutines may run at once, and beside any
// launch's Observer calls, so HostAccess must be safe for that.
//
// In the terminology of [the Go memory model], the host accesses of one
// goroutine are ordered by that goroutine's program order (host order)
// and nothing else. Every write of every thread of a launch synchronizes
// before its Launch returns, and the call to Launch synchronizes before
// every thread of the launch starts, so a host access made after Launch
// returned, or before Launch was called, on the goroutine that launched,
// is ordered with every access of the launch. A host access made while a
// launch runs, from another goroutine, is ordered with the launch's
// threads by nothing the runtime does: neither the host function nor
// a thread's access synchronizes with the other. An observer that sees
// only its own calls can tell host order by their order: a launch whose
// LaunchEnd was called before HostAccess, or whose LaunchStart is called
// after HostAccess returned, is taken as ordered with the host access.
//
// [the Go memory model]: https://go.dev/ref/mem
type HostObserver interface {
	Observer
	// HostAccess is called before the host reads or writes the elements
	// h describes.
	HostAccess(h HostAccess)
}

// A HostAccess describes one host function's access to a range of a
// [Memory]'s elements, to a [HostObserver].
type HostAccess struct {
	Mem   *Memory
	Index int    // the first element accessed, an index in Mem (not in a view)
	Len   int    // elements accessed, at least 1: Index to Index+Len-1
	Write bool   // the host writes the elements; else it reads them
	Op    string // the host function: "CopyIn", "CopyOut", "Fill" or "Copy"
}

// observeHost tells the device observer of m, if it is a HostObserver,
// that the host function op accesses elements lo to lo+n-1 of m. Decoded
// memories, which belong to no device, and empty ranges report nothing.
func observeHost(m *Memory, lo, n int, write bool, op string) {
	if m == nil || m.dev == nil || n == 0 {
		return
	}
	if h, ok := m.dev.cfg.Observer.(HostObserver); ok {
		h.HostAccess(HostAccess{Mem: m, Index: lo, Len: n, Write: write, Op: op})
	}
}
