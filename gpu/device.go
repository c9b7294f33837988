package gpu

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// DeviceConfig describes an emulated GPU. Zero fields take the defaults
// listed on each field, which resemble a small Volta-class part.
//
// Besides CUDA's limits, the runtime bounds what a device holds at once,
// because it makes a goroutine per resident block (and, under the
// Goroutines executor, one per resident thread): SMs*MaxBlocksPerSM may be
// at most 2^14 resident blocks and SMs*MaxThreadsPerSM at most 2^20
// resident threads, several times a large GPU's residency. NewDevice
// checks every field and product against these bounds, without
// overflowing, before it allocates anything.
type DeviceConfig struct {
	Name               string // "warpguard"
	SMs                int    // streaming multiprocessors: 8
	MaxBlocksPerSM     int    // resident blocks per SM: 16
	MaxThreadsPerSM    int    // resident threads per SM: 2048
	MaxThreadsPerBlock int    // 1024, CUDA's limit
	WarpSize           int    // 32; a power of two from 1 to 64
	SharedMemPerBlock  int    // bytes of shared memory a block may use: 48 KiB
	// Watchdog is the default livelock window of launches on the device
	// (see [ErrLivelock] and LaunchConfig.Watchdog): DefaultWatchdog if zero;
	// a negative value turns the watchdog off.
	Watchdog time.Duration
	// Timeout, if positive, is the LaunchConfig.Timeout of the device's
	// launches whose Config sets none; zero sets none, and a negative
	// value is an error, as it is in Config.
	Timeout time.Duration
	// Deadline, if not zero, stops every launch on the device still
	// running at it, as a context's deadline does: its *StallError wraps
	// context.DeadlineExceeded and lists where each unfinished thread
	// was. A launch made after it does not start. It bounds launches
	// whose callers pass contexts without deadlines, as racetest.Device
	// bounds them by the test's deadline.
	Deadline time.Time
	// Observer, if not nil, observes every launch on the device, as if
	// each set it in LaunchConfig.Observer: attaching a race detector here
	// checks code whose launches are out of reach, unchanged. A launch
	// whose Config names another observer is observed by both, the
	// device's first (see [LaunchConfig]).
	Observer Observer
}

// A Device is an emulated GPU: a description, the global memory allocated on
// it, and the launches that run on it. Use [NewDevice]; the zero value is
// not usable. A Device is safe for concurrent use, including concurrent
// launches, which share its global memory as concurrent kernels on one GPU
// would.
//
// Every device has a number, unique in the process (see [Device.ID]),
// which every [Memory] allocated on it carries, so that an observer that
// watches several devices never confuses their memories, and an access
// to a buffer of another device fails with a [*ForeignError].
type Device struct {
	cfg      DeviceConfig
	id       uint64        // the device's number; 0 only in a Device not made by NewDevice
	nextAddr atomic.Uint64 // bump allocator for global addresses
	nextID   atomic.Uint64 // ids of memories and launches
	sites    siteCache
	fibers   *fiberPool  // idle fibers, reused across launches
	workers  *workerPool // idle goroutines of slots and of the Goroutines executor, reused across launches
	states   statePool   // threads' slow-path states, reused across launches
	// fenceSC orders the device- and system-scope fence.sc reports of
	// the device's launches to a pair of sequencing observers (see
	// Thread.observeFence).
	fenceSC sync.Mutex
}

// NewDevice returns a device described by cfg, with defaults for its zero
// fields, or an error naming the first field that is out of range.
func NewDevice(cfg DeviceConfig) (*Device, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	d := &Device{cfg: cfg, id: deviceNumbers.Add(1)}
	d.nextAddr.Store(1 << 20) // keep address 0 unused, as a null pointer
	d.fibers = newFiberPool(d)
	d.workers = newWorkerPool(d)
	d.states.max = cfg.SMs * cfg.MaxThreadsPerSM
	return d, nil
}

// deviceNumbers numbers the devices of the process. A device's number
// must differ from every other device's, wherever each was made, because
// one observer may watch devices made by unrelated code and must tell
// their memories apart, in its tables and in the reports it encodes;
// only a process-wide counter gives such numbers. It is an atomic, so
// concurrent NewDevice calls are safe, and it is touched only by
// NewDevice: nothing runs at init.
var deviceNumbers atomic.Uint64

// Config returns the device's description with every default filled in.
func (d *Device) Config() DeviceConfig { return d.cfg }

// ID returns the device's number: unique among the devices of the
// process, counting from 1 in the order NewDevice made them. It is the
// DeviceID of every [Memory] allocated on the device.
func (d *Device) ID() uint64 { return d.id }

// String names the device for errors, by its number and its
// DeviceConfig.Name, such as `device 2 "warpguard"`.
func (d *Device) String() string {
	if d == nil {
		return "nil device"
	}
	return fmt.Sprintf("device %d %q", d.id, d.cfg.Name)
}

// made reports whether NewDevice made d: the zero Device has no number.
func (d *Device) made() bool { return d.id != 0 }

func (c DeviceConfig) withDefaults() DeviceConfig {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	if c.Name == "" {
		c.Name = "warpguard"
	}
	def(&c.SMs, 8)
	def(&c.MaxBlocksPerSM, 16)
	def(&c.MaxThreadsPerSM, 2048)
	def(&c.MaxThreadsPerBlock, 1024)
	def(&c.WarpSize, 32)
	def(&c.SharedMemPerBlock, 48<<10)
	if c.Watchdog == 0 {
		c.Watchdog = DefaultWatchdog
	}
	return c
}

// The runtime's bounds on what a device holds at once (see DeviceConfig):
// a goroutine runs each resident block, and under the Goroutines executor
// each resident thread.
const (
	maxResidentBlocks  = 1 << 14 // SMs * MaxBlocksPerSM
	maxResidentThreads = 1 << 20 // SMs * MaxThreadsPerSM
)

// validate returns an error naming the first field of c out of range, or
// nil. Each product is bounded by dividing the bound, so no product is
// ever formed that could overflow.
func (c DeviceConfig) validate() error {
	if err := c.validateSizes(); err != nil {
		return err
	}
	switch {
	case c.WarpSize < 1 || c.WarpSize > 64 || bits.OnesCount(uint(c.WarpSize)) != 1:
		return fmt.Errorf("gpu: device WarpSize = %d; want a power of two from 1 to 64", c.WarpSize)
	case c.SharedMemPerBlock < 0:
		return fmt.Errorf("gpu: device SharedMemPerBlock = %d; want >= 0", c.SharedMemPerBlock)
	case c.Timeout < 0:
		return fmt.Errorf("gpu: device Timeout = %v; want >= 0 (0 for none)", c.Timeout)
	case nilObserver(c.Observer):
		return fmt.Errorf("gpu: device Observer is a nil %T; leave the Observer nil for a device with none", c.Observer)
	}
	return nil
}

// validateSizes checks the counts of SMs, blocks and threads, and the
// resident blocks and threads their products make.
func (c DeviceConfig) validateSizes() error {
	switch {
	case c.SMs < 1 || c.SMs > maxResidentBlocks:
		return fmt.Errorf("gpu: device SMs = %d; want 1 to %d, the resident blocks the runtime runs at once", c.SMs, maxResidentBlocks)
	case c.MaxBlocksPerSM < 1 || c.MaxBlocksPerSM > maxResidentBlocks/c.SMs:
		return fmt.Errorf("gpu: device MaxBlocksPerSM = %d; want 1 to %d, so that its %d SMs hold at most %d resident blocks",
			c.MaxBlocksPerSM, maxResidentBlocks/c.SMs, c.SMs, maxResidentBlocks)
	case c.MaxThreadsPerBlock < 1:
		return fmt.Errorf("gpu: device MaxThreadsPerBlock = %d; want >= 1", c.MaxThreadsPerBlock)
	case c.MaxThreadsPerSM < c.MaxThreadsPerBlock:
		return fmt.Errorf("gpu: device MaxThreadsPerSM = %d is below MaxThreadsPerBlock = %d", c.MaxThreadsPerSM, c.MaxThreadsPerBlock)
	case c.MaxThreadsPerSM > maxResidentThreads/c.SMs:
		return fmt.Errorf("gpu: device MaxThreadsPerSM = %d; want at most %d, so that its %d SMs hold at most %d resident threads",
			c.MaxThreadsPerSM, maxResidentThreads/c.SMs, c.SMs, maxResidentThreads)
	}
	return nil
}

// allocAddr reserves n bytes of the device's global address space, aligned
// to 256 bytes as cudaMalloc aligns, and returns the base address.
func (d *Device) allocAddr(n int) uint64 {
	size := (uint64(n) + 255) &^ 255
	if size == 0 {
		size = 256
	}
	return d.nextAddr.Add(size) - size
}
