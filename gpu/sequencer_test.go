package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// memoryOrder is a Sequencer that replays each element's sequenced
// accesses as it sees them, and counts every strong read whose value is
// not the value the replay holds: a read reported out of its element's
// order. It stripes its mutexes as a detector would.
type memoryOrder struct {
	stripes [8]sync.Mutex
	mu      sync.Mutex // guards vals: elements of different stripes
	vals    map[[3]uint64]uint64
	seen    atomic.Int64 // sequenced accesses reported
	wrong   atomic.Int64 // strong reads out of order
	weak    atomic.Int64 // weak loads reported
	unheld  atomic.Int64 // sequenced accesses reported without their stripe held
	flagged atomic.Int64 // accesses whose Sequenced says otherwise than the runtime did
	halt    func(t *gpu.Thread, a *gpu.Access)
}

func newMemoryOrder() *memoryOrder { return &memoryOrder{vals: map[[3]uint64]uint64{}} }

func (o *memoryOrder) Sequence(m *gpu.Memory, i int) *sync.Mutex {
	return &o.stripes[(int(m.ID)*7+i)%len(o.stripes)]
}

func (o *memoryOrder) Sequences() bool { return true }

func (o *memoryOrder) LaunchStart(*gpu.Grid)                     {}
func (o *memoryOrder) LaunchEnd(*gpu.Grid, error)                {}
func (o *memoryOrder) BlockStart(*gpu.Grid, int)                 {}
func (o *memoryOrder) BlockEnd(*gpu.Grid, int)                   {}
func (o *memoryOrder) Fence(*gpu.Thread, scope.Scope, gpu.Order) {}
func (o *memoryOrder) Sync(*gpu.Thread, gpu.Sync)                {}
func (o *memoryOrder) Access(t *gpu.Thread, a *gpu.Access) {
	weak := a.Op == gpu.OpLoad && a.Order == gpu.Weak
	if a.Sequenced != (!weak && t.SequencedBy(o)) {
		o.flagged.Add(1)
	}
	if weak {
		o.weak.Add(1)
		return
	}
	if o.Sequence(a.Mem, a.Index).TryLock() {
		o.unheld.Add(1)
		o.Sequence(a.Mem, a.Index).Unlock()
	}
	o.seen.Add(1)
	o.replay(a)
	if o.halt != nil {
		o.halt(t, a)
	}
}

// replay applies a to the element's replayed value, counting a read that
// found another value.
func (o *memoryOrder) replay(a *gpu.Access) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := [3]uint64{a.Mem.DeviceID, a.Mem.ID, uint64(a.Index)}
	cur := o.vals[k]
	if a.Op.Reads() && a.Old != cur {
		o.wrong.Add(1)
	}
	switch {
	case a.Op == gpu.OpAdd:
		o.vals[k] = uint64(uint32(cur + a.Arg))
	case a.Op == gpu.OpLoad:
	case a.Succeeded():
		o.vals[k] = a.Arg
	}
}

// contend is a kernel whose threads mix every sequenced kind of access on
// two elements, and weak loads.
func contend(ctr, flag gpu.Buffer[uint32]) gpu.Kernel {
	return func(t *gpu.Thread) {
		id := uint32(t.GlobalID())
		for k := range uint32(20) {
			ctr.AtomicAdd(t, 0, 1, scope.Device)
			flag.StoreVolatile(t, 0, id+k)
			v := flag.LoadVolatile(t, 0)
			flag.AtomicCAS(t, 0, v, id, scope.Device)
			flag.AtomicExch(t, 0, k, scope.Device)
			flag.StoreRelease(t, 0, id, scope.Device)
			_ = flag.LoadAcquire(t, 0, scope.Device) + ctr.AtomicLoad(t, 0, scope.Device)
			ctr.Store(t, 1, id)
			_ = ctr.Load(t, 1)
		}
	}
}

// TestSequencerSeesMemoryOrder: under both executors on every core, a
// Sequencer sees each element's stores, read-modify-writes and strong
// loads in the order they took effect: every strong read and RMW reports
// the value the replay of the accesses before it holds, each under its
// element's mutex; weak loads are reported unsequenced.
func TestSequencerSeesMemoryOrder(t *testing.T) {
	t.Parallel()
	for _, ex := range []gpu.Executor{gpu.Fibers, gpu.Goroutines} {
		t.Run(ex.String(), func(t *testing.T) {
			d := newDevice(t)
			ctr, flag := gpu.Alloc[uint32](d, "ctr", 2), gpu.Alloc[uint32](d, "flag", 1)
			o := newMemoryOrder()
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 8}, Block: gpu.Dim3{X: 32}, Executor: ex, Observer: o}
			require.NoError(t, d.Launch(context.Background(), cfg, contend(ctr, flag)))
			require.Zero(t, o.wrong.Load(), "strong reads reported out of memory order")
			require.Zero(t, o.unheld.Load(), "accesses reported without their element's mutex")
			require.Zero(t, o.flagged.Load(), "Access.Sequenced set where the mutex was not held, or not where it was")
			require.Equal(t, int64(8*32*20*9), o.seen.Load())
			require.Equal(t, int64(8*32*20), o.weak.Load())
			out := make([]uint32, 2)
			require.NoError(t, ctr.CopyOut(out))
			require.Equal(t, uint32(8*32*20), out[0])
		})
	}
}

// TestSequencerPair: when a device's observer and a launch's both
// sequence, each sees memory order, and two devices whose observers are
// the same two Sequencers in opposite roles run at once without
// deadlock.
func TestSequencerPair(t *testing.T) {
	t.Parallel()
	x, y := newMemoryOrder(), newMemoryOrder()
	d1, err := gpu.NewDevice(gpu.DeviceConfig{Name: "d1", Observer: x})
	require.NoError(t, err)
	d2, err := gpu.NewDevice(gpu.DeviceConfig{Name: "d2", Observer: y})
	require.NoError(t, err)
	t.Cleanup(func() { d1.Close(); d2.Close() })
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, run := range []struct {
		d   *gpu.Device
		obs gpu.Observer
	}{{d1, y}, {d2, x}} {
		ctr, flag := gpu.Alloc[uint32](run.d, "ctr", 2), gpu.Alloc[uint32](run.d, "flag", 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 4}, Block: gpu.Dim3{X: 32}, Executor: gpu.Goroutines, Observer: run.obs}
			errs[i] = run.d.Launch(context.Background(), cfg, contend(ctr, flag))
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	for _, o := range []*memoryOrder{x, y} {
		require.Zero(t, o.wrong.Load())
		require.Zero(t, o.flagged.Load(), "both hold: each is one of the launch's sequencers")
		require.Equal(t, int64(2*4*32*20*9), o.seen.Load(), "each sees both launches")
	}
}

// TestSequencerHaltUnlocks: an observer that halts a thread inside a
// sequenced access leaves the element's mutex unlocked: the launch
// fails with the halt, and the next launch on the element runs.
func TestSequencerHaltUnlocks(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	ctr, flag := gpu.Alloc[uint32](d, "ctr", 2), gpu.Alloc[uint32](d, "flag", 1)
	o := newMemoryOrder()
	stop := errors.New("stop here")
	o.halt = func(t *gpu.Thread, a *gpu.Access) {
		if a.Op == gpu.OpExch && t.GlobalID() == 3 {
			t.Halt(stop)
		}
	}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Observer: o}
	require.ErrorIs(t, d.Launch(context.Background(), cfg, contend(ctr, flag)), stop)
	for i := range o.stripes {
		require.True(t, o.stripes[i].TryLock(), "stripe %d left locked", i)
		o.stripes[i].Unlock()
	}
	o.halt = nil
	require.NoError(t, d.Launch(context.Background(), cfg, contend(ctr, flag)))
}

// TestSequencedAccessAllocs: a sequenced access allocates nothing.
func TestSequencedAccessAllocs(t *testing.T) {
	d := newDevice(t)
	ctr := gpu.Alloc[uint32](d, "ctr", 1)
	o := newMemoryOrder()
	var allocs float64
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: o}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
		allocs = testing.AllocsPerRun(100, func() {
			ctr.AtomicAdd(t, 0, 1, scope.Device)
			ctr.StoreRelease(t, 0, 2, scope.Device)
			ctr.Store(t, 0, 3)
		})
	}))
	require.Zero(t, allocs, fmt.Sprint("allocations per sequenced access: ", allocs))
}

// idleSequencer is a Sequencer that says it does not sequence: its
// Sequence must never be called.
type idleSequencer struct{ *memoryOrder }

func (idleSequencer) Sequences() bool { return false }
func (idleSequencer) Sequence(*gpu.Memory, int) *sync.Mutex {
	panic("Sequence called on an observer that does not sequence")
}

// TestSequencerOptOut: an observer whose Sequences reports false is
// reported to as any observer, with no mutex asked for.
func TestSequencerOptOut(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	ctr, flag := gpu.Alloc[uint32](d, "ctr", 2), gpu.Alloc[uint32](d, "flag", 1)
	o := idleSequencer{newMemoryOrder()}
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Observer: o}
	require.NoError(t, d.Launch(context.Background(), cfg, contend(ctr, flag)))
	require.Equal(t, int64(2*32*20*9), o.seen.Load())
	require.Zero(t, o.flagged.Load(), "no access is sequenced, and the observer sequences none")
}
