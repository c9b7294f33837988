package gpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// shflKind selects one of the four shuffles.
type shflKind int

const (
	kIdx shflKind = iota
	kUp
	kDown
	kXor
)

func (k shflKind) String() string { return [...]string{"idx", "up", "down", "xor"}[k] }

// refShfl is the sequential reference: PTX shfl.sync's pseudo-code as the
// ISA manual states it, for a warp of ws lanes (ws-1 in place of 31). It
// returns the lane to read from, -1 if that lane does not participate.
func refShfl(k shflKind, lane, b, width, ws int, mask uint64) int {
	bval := b & (ws - 1)
	segmask := (ws - width) & (ws - 1)
	c := ws - 1
	if k == kUp {
		c = 0
	}
	maxLane := lane&segmask | c&^segmask
	minLane := lane & segmask
	var j int
	var p bool
	switch k {
	case kUp:
		j = lane - bval
		p = j >= maxLane
	case kDown:
		j = lane + bval
		p = j <= maxLane
	case kXor:
		j = lane ^ bval
		p = j <= maxLane
	case kIdx:
		j = minLane | bval&^segmask
		p = j <= maxLane
	}
	if !p {
		j = lane
	}
	if mask&(1<<j) == 0 {
		return -1
	}
	return j
}

func shfl[T gpu.Elem](t *gpu.Thread, k shflKind, mask uint64, v T, b, width int) T {
	switch k {
	case kUp:
		return gpu.ShflUpSync(t, mask, v, b, width)
	case kDown:
		return gpu.ShflDownSync(t, mask, v, b, width)
	case kXor:
		return gpu.ShflXorSync(t, mask, v, b, width)
	}
	return gpu.ShflSync(t, mask, v, b, width)
}

var (
	testMasks = []uint64{gpu.FullMask, 0xffffffff, 0x0000ffff, 0xaaaaaaaa, 0x80000001, 0x1, 0x12345678}
	testArgs  = []int{0, 1, 2, 3, 5, 8, 16, 31, 32, 33, -1, -7}
)

// shflCase is one shuffle of a table: an operation, its argument and width.
type shflCase struct {
	k        shflKind
	arg, wid int
}

func shflCases(ws int) []shflCase {
	var cs []shflCase
	for k := kIdx; k <= kXor; k++ {
		for _, a := range testArgs {
			for w := 1; w <= ws; w *= 2 {
				cs = append(cs, shflCase{k, a, w})
			}
		}
	}
	return cs
}

// checkShuffles runs every case over every mask in one launch per mask and
// compares every lane's result with the reference.
func checkShuffles[T gpu.Elem](t *testing.T, ex gpu.Executor, ws, threads int, val func(lane int) T) {
	d, err := gpu.NewDevice(gpu.DeviceConfig{WarpSize: ws})
	require.NoError(t, err)
	closeAtEnd(t, d)
	cases := shflCases(ws)
	for _, mask := range testMasks {
		out := gpu.Alloc[T](d, "out", len(cases)*threads)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: threads}, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if mask&(1<<t.Lane()) == 0 {
				return
			}
			for i, c := range cases {
				out.Store(t, i*threads+t.ThreadRank(), shfl(t, c.k, mask, val(t.Lane()), c.arg, c.wid))
			}
		}))
		h := out.Host()
		exists := uint64(1)<<min(threads, 63) - 1
		if threads >= 64 {
			exists = gpu.FullMask
		}
		part := mask & exists
		for i, c := range cases {
			for lane := range threads {
				if part&(1<<lane) == 0 {
					continue
				}
				var want T
				if src := refShfl(c.k, lane, c.arg, c.wid, ws, part); src >= 0 {
					want = val(src)
				}
				require.Equal(t, want, h[i*threads+lane], "mask %#x %v arg %d width %d lane %d", mask, c.k, c.arg, c.wid, lane)
			}
		}
	}
}

func TestShuffleReference(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		checkShuffles(t, ex, 32, 32, func(l int) int32 { return int32(100 + 7*l) })
	})
}

// TestShufflePartialWarp runs a 20-lane warp: FullMask names only the
// lanes that exist, and sources beyond them are not participants.
func TestShufflePartialWarp(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		checkShuffles(t, ex, 32, 20, func(l int) uint32 { return uint32(l*l + 1) })
	})
}

func TestShuffleWarpSizes(t *testing.T) {
	t.Parallel()
	for _, ws := range []int{1, 8, 64} {
		t.Run(fmt.Sprint(ws), func(t *testing.T) {
			checkShuffles(t, gpu.Fibers, ws, ws, func(l int) int64 { return int64(l)<<40 | int64(l) })
		})
	}
}

func TestShuffleEveryType(t *testing.T) {
	t.Parallel()
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) int32 { return -int32(l) })
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) uint32 { return 1<<31 | uint32(l) })
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) int64 { return -1 << 40 * int64(l+1) })
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) uint64 { return 1<<63 | uint64(l) })
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) float32 { return float32(l) + 0.5 })
	checkShuffles(t, gpu.Fibers, 32, 32, func(l int) float64 { return -float64(l) / 3 })
}

func TestShuffleBadWidth(t *testing.T) {
	t.Parallel()
	d := newDevice(t)
	for _, w := range []int{0, 3, 64, -2} {
		err := launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) { gpu.ShflSync(t, gpu.FullMask, int32(1), 0, w) })
		require.ErrorContains(t, err, fmt.Sprintf("shfl with width %d; want a power of two from 1 to the warp size 32", w))
	}
}

// FuzzShuffle checks the lane arithmetic of every shuffle against the
// reference for arbitrary masks, arguments and widths.
func FuzzShuffle(f *testing.F) {
	f.Add(uint64(0xffffffff), uint8(0), 5, uint8(5))
	f.Add(uint64(0x0f0f0f0f), uint8(1), 3, uint8(3))
	f.Add(uint64(0x80000000), uint8(2), 31, uint8(0))
	f.Add(uint64(0xdeadbeef), uint8(3), -9, uint8(4))
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	require.NoError(f, err)
	closeAtEnd(f, d)
	f.Fuzz(func(t *testing.T, mask uint64, op uint8, arg int, wlog uint8) {
		k, width := shflKind(op%4), 1<<(wlog%6)
		mask &= 0xffffffff
		if mask == 0 {
			return
		}
		out := gpu.Alloc[int32](d, "out", 32)
		err := launch1D(d, gpu.Fibers, 1, 32, func(t *gpu.Thread) {
			if mask&(1<<t.Lane()) != 0 {
				out.Store(t, t.Lane(), shfl(t, k, mask, int32(t.Lane()+1), arg, width))
			}
		})
		require.NoError(t, err)
		for lane := range 32 {
			if mask&(1<<lane) != 0 {
				require.Equal(t, int32(refShfl(k, lane, arg, width, 32, mask)+1), out.Host()[lane], "lane %d", lane)
			}
		}
	})
}
