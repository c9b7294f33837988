package gpu_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// fuzzTimeout bounds a fuzzed launch: a valid configuration of billions
// of threads is stopped by it, which is an error, not a hang.
const fuzzTimeout = 2 * time.Second

// FuzzLaunchConfig launches a small kernel with barriers under arbitrary
// configurations: every launch either runs or returns an error, and
// never panics, hangs or leaks a goroutine.
func FuzzLaunchConfig(f *testing.F) {
	f.Add(1, 1, 1, 32, 1, 1, 0, uint8(0), uint8(0), uint8(0), uint64(0), false, false)
	f.Add(3, 2, 1, 8, 4, 2, 64, uint8(1), uint8(1), uint8(2), uint64(7), false, true)
	f.Add(4, 1, 1, 64, 1, 1, 0, uint8(0), uint8(2), uint8(1), uint64(3), true, true)
	f.Add(-1, 0, 0, 1025, 0, 0, -5, uint8(9), uint8(9), uint8(9), uint64(0), true, false)
	f.Add(1<<31-1, 65535, 65535, 1024, 1, 1, 0, uint8(0), uint8(0), uint8(0), uint64(0), false, false)
	f.Add(1, 1, 1, 0, 0, 0, 1<<30, uint8(0), uint8(0), uint8(0), uint64(0), false, false)
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	if err != nil {
		f.Fatal(err)
	}
	closeAtEnd(f, d)
	out := gpu.Alloc[int32](d, "out", 1<<12)
	f.Fuzz(func(t *testing.T, gx, gy, gz, bx, by, bz, dyn int, ex, div, sched uint8, seed uint64, det, coop bool) {
		baseline := goleak.IgnoreCurrent()
		cfg := gpu.LaunchConfig{
			Grid: gpu.Dim3{X: gx, Y: gy, Z: gz}, Block: gpu.Dim3{X: bx, Y: by, Z: bz}, DynamicShared: dyn,
			Executor: gpu.Executor(ex), Divergence: gpu.DivergenceMode(div), Schedule: gpu.Schedule(sched),
			Seed: seed, Deterministic: det, Cooperative: coop, Timeout: fuzzTimeout,
		}
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			s := gpu.Shared[int32](t, "s", 4)
			s.AtomicAdd(t, t.ThreadRank()%4, 1, scope.Block)
			t.SyncThreads()
			out.AtomicAdd(t, t.GlobalID()%out.Len(), s.Load(t, 0), scope.Device)
			if dyn > 0 {
				gpu.DynamicShared[int32](t).Store(t, 0, 1)
			}
			t.SyncWarp(gpu.ActiveMask(t))
		})
		require.LessOrEqual(t, time.Since(start), fuzzTimeout+10*time.Second, "launch of %+v: %v", cfg, err)
		var se *gpu.StallError
		if errors.As(err, &se) {
			require.Empty(t, se.LeftRunning, "a kernel that calls the runtime was left running: %v", err)
		}
		goleak.VerifyNone(t, ignoreIdle(baseline)...)
	})
}

// FuzzAccess runs one thread's access, intrinsic or declaration with
// arbitrary indices, lengths, masks, widths and scopes: the launch either
// runs or returns an error naming the thread, and never panics, hangs or
// leaks. An access in range must succeed.
func FuzzAccess(f *testing.F) {
	f.Add(uint8(0), 8, 3, uint64(0xffffffff), 32, uint8(2))
	f.Add(uint8(1), 8, 8, uint64(0x1), 16, uint8(1))
	f.Add(uint8(2), 0, -1, uint64(0), 0, uint8(9))
	f.Add(uint8(3), 1<<40, 1<<62, uint64(0xff00), 33, uint8(0))
	f.Add(uint8(4), -4, 5, uint64(1)<<63, -2, uint8(3))
	f.Add(uint8(5), 64, 7, uint64(0xf), 4, uint8(2))
	f.Add(uint8(6), 1<<36, 0, uint64(0xffffffff), 8, uint8(1))
	f.Add(uint8(7), 8, 3, uint64(0xffffffff), 8, uint8(2))
	d, err := gpu.NewDevice(gpu.DeviceConfig{})
	if err != nil {
		f.Fatal(err)
	}
	closeAtEnd(f, d)
	buf := gpu.Alloc[int64](d, "buf", 64)
	f.Fuzz(func(t *testing.T, op uint8, n, i int, mask uint64, width int, sc uint8) {
		baseline := goleak.IgnoreCurrent()
		s := scope.Scope(sc)
		inRange := i >= 0 && i < buf.Len() && s <= scope.System
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}, Timeout: fuzzTimeout}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			switch op % 8 {
			case 0:
				buf.AtomicAdd(t, i, 1, s)
			case 1:
				buf.StoreRelease(t, i, 1, s)
			case 2:
				buf.Load(t, i)
			case 3:
				gpu.Shared[float32](t, "s", n).Store(t, i, 1)
			case 4:
				gpu.ShflSync(t, mask, int32(t.Lane()), i, width)
			case 5:
				gpu.Reduce(gpu.TiledPartition(t, width), int32(1), gpu.Add[int32])
			case 6:
				gpu.Shared[int64](t, "big", n)
			case 7:
				gpu.ShflXorSync(t, mask, int32(1), i, width)
			}
		})
		if op%8 <= 2 && inRange {
			require.NoError(t, err, "an access in range")
		}
		var te *gpu.ThreadError
		if errors.As(err, &te) {
			require.False(t, te.Site.IsZero(), "a thread error without the kernel's line: %v", err)
		}
		goleak.VerifyNone(t, ignoreIdle(baseline)...)
	})
}
