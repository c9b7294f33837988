package gpu_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// hostRecorder is a HostObserver that writes each host access as a line,
// after calling peek, if set; what peek does reports nothing.
type hostRecorder struct {
	recorder
	hmu   sync.Mutex
	host  []string
	peek  func(h gpu.HostAccess)
	inner atomic.Bool // peek runs
}

func (r *hostRecorder) HostAccess(h gpu.HostAccess) {
	if r.inner.Load() {
		return
	}
	if r.peek != nil {
		r.inner.Store(true)
		r.peek(h)
		r.inner.Store(false)
	}
	r.hmu.Lock()
	defer r.hmu.Unlock()
	r.host = append(r.host, fmt.Sprintf("%s %s [%d,+%d) write=%v dev=%d", h.Op, h.Mem.Name, h.Index, h.Len, h.Write, h.Mem.DeviceID))
}

// TestHostObserver: the device's observer learns of every host copy and
// fill, with the memory, the range and the direction; a call that fails
// or touches nothing reports nothing.
func TestHostObserver(t *testing.T) {
	t.Parallel()
	rec := &hostRecorder{}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	closeAtEnd(t, d)
	x := gpu.FromHost(d, "x", []int32{1, 2, 3})
	x.Fill(7)
	require.Equal(t, []int32{7, 7, 7}, x.Host())
	require.NoError(t, x.CopyIn([]int32{4, 5, 6}))
	require.NoError(t, x.CopyOut(make([]int32, 3)))
	require.Error(t, x.CopyIn([]int32{1}), "a wrong length copies nothing")
	require.Error(t, x.CopyOut(make([]int32, 1)))
	gpu.Alloc[float64](d, "empty", 0).Fill(1)
	var zero gpu.Buffer[uint32]
	zero.Fill(1)
	id := d.ID()
	require.Equal(t, []string{
		fmt.Sprintf("CopyIn x [0,+3) write=true dev=%d", id),
		fmt.Sprintf("Fill x [0,+3) write=true dev=%d", id),
		fmt.Sprintf("CopyOut x [0,+3) write=false dev=%d", id),
		fmt.Sprintf("CopyIn x [0,+3) write=true dev=%d", id),
		fmt.Sprintf("CopyOut x [0,+3) write=false dev=%d", id),
	}, rec.host)
}

// TestHostObserverBeforeCopy: HostAccess runs before the host touches
// memory, so the observer of a write still sees the old values.
func TestHostObserverBeforeCopy(t *testing.T) {
	t.Parallel()
	rec := &hostRecorder{}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	closeAtEnd(t, d)
	x := gpu.FromHost(d, "x", []int32{1, 2})
	var seen [][]int32
	rec.peek = func(h gpu.HostAccess) {
		if h.Write {
			seen = append(seen, x.Host()) // reports nothing: inner
		}
	}
	require.NoError(t, x.CopyIn([]int32{3, 4}))
	x.Fill(9)
	require.Equal(t, [][]int32{{1, 2}, {3, 4}}, seen)
	require.Equal(t, []int32{9, 9}, x.Host())
}

// TestHostObserverOnlyTheDevices: host copies belong to no launch, so a
// launch's own observer is not told of them, even one that could hear
// them, nor a device observer that is not a HostObserver.
func TestHostObserverOnlyTheDevices(t *testing.T) {
	t.Parallel()
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: &recorder{}})
	require.NoError(t, err)
	closeAtEnd(t, d)
	own := &hostRecorder{}
	x := gpu.FromHost(d, "x", []int32{1})
	cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Observer: own}
	require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) { x.Store(t, 0, 2) }))
	require.Equal(t, []int32{2}, x.Host())
	require.Empty(t, own.host)
}
