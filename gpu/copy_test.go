package gpu_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// TestCopy: Copy moves a buffer or view into another of the same length
// on the same device, and between overlapping views of one buffer as
// Go's copy does.
func TestCopy(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	src := gpu.FromHost(d, "src", []uint8{1, 2, 3, 4, 5})
	dst := gpu.Alloc[uint8](d, "dst", 5)
	require.NoError(t, gpu.Copy(dst, src))
	require.Equal(t, []uint8{1, 2, 3, 4, 5}, dst.Host())
	require.NoError(t, gpu.Copy(dst.Slice(0, 2), src.Slice(3, 5)))
	require.Equal(t, []uint8{4, 5, 3, 4, 5}, dst.Host())

	x := gpu.FromHost(d, "x", []int32{0, 1, 2, 3, 4, 5})
	require.NoError(t, gpu.Copy(x.Slice(1, 6), x.Slice(0, 5)), "overlapping forwards")
	require.Equal(t, []int32{0, 0, 1, 2, 3, 4}, x.Host())
	require.NoError(t, gpu.Copy(x.Slice(0, 4), x.Slice(2, 6)), "overlapping backwards")
	require.Equal(t, []int32{1, 2, 3, 4, 3, 4}, x.Host())
	require.NoError(t, gpu.Copy(gpu.Buffer[int32]{}, x.Slice(6, 6)), "nothing to copy")
}

// TestCopyErrors: a Copy between buffers of different lengths or devices
// returns an error naming both and copies nothing.
func TestCopyErrors(t *testing.T) {
	t.Parallel()
	d, e := newDevice(t), newDevice(t)
	a := gpu.FromHost(d, "a", []float64{1, 2})
	b := gpu.Alloc[float64](d, "b", 3)
	c := gpu.Alloc[float64](e, "c", 2)
	require.ErrorContains(t, gpu.Copy(b, a), `gpu: Copy of global "a" of length 2 into global "b" of length 3`)
	require.ErrorContains(t, gpu.Copy(b.Slice(1, 3), c), `Copy of global "c" on `+e.String()+` into view [1,3) of global "b" on `+d.String())
	require.Equal(t, []float64{0, 0, 0}, b.Host())
}

// TestCopyObserved: a device's HostObserver sees a Copy as a host read
// of the source's range, then a host write of the destination's.
func TestCopyObserved(t *testing.T) {
	t.Parallel()
	rec := &hostRecorder{}
	d, err := gpu.NewDevice(gpu.DeviceConfig{Observer: rec})
	require.NoError(t, err)
	closeAtEnd(t, d)
	src := gpu.Alloc[uint16](d, "src", 4)
	dst := gpu.Alloc[uint16](d, "dst", 6)
	require.NoError(t, gpu.Copy(dst.Slice(3, 5), src.Slice(1, 3)))
	require.Error(t, gpu.Copy(dst, src))
	require.Equal(t, []string{
		fmt.Sprintf("Copy src [1,+2) write=false dev=%d", d.ID()),
		fmt.Sprintf("Copy dst [3,+2) write=true dev=%d", d.ID()),
	}, rec.host)
}
