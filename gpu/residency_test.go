package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// TestNotResident: on a device that holds one block at a time, block 0
// spins on a flag block 1 sets; block 1 can only start after block 0
// ends. With no deadline at all the launch must still end, with an error
// saying the blocks must be co-resident.
func TestNotResident(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d, err := gpu.NewDevice(gpu.DeviceConfig{SMs: 1, MaxBlocksPerSM: 1})
		require.NoError(t, err)
		closeAtEnd(t, d)
		flag := gpu.Alloc[int32](d, "flag", 1)
		done := make(chan error, 1)
		go func() {
			cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 32}, Executor: ex}
			done <- d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
				if t.BlockRank() == 1 {
					flag.AtomicStore(t, 0, 1, scope.Device)
					return
				}
				for flag.AtomicLoad(t, 0, scope.Device) == 0 {
				}
			})
		}()
		select {
		case err := <-done:
			require.ErrorIs(t, err, gpu.ErrNotResident)
			require.ErrorContains(t, err, "1 of 2 blocks were never scheduled")
			var se *gpu.StallError
			require.ErrorAs(t, err, &se)
			require.NotEmpty(t, se.Threads, "the report says where the spinning threads were")
		case <-time.After(30 * time.Second):
			require.FailNow(t, "the launch is still running after 30 s")
		}
	})
}

// TestResidentSpinIsFine: the same kernel with both blocks resident runs
// to completion, and a grid larger than the device whose blocks wait only
// on earlier blocks is not mistaken for one that waits on later ones.
func TestResidentSpinIsFine(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d, err := gpu.NewDevice(gpu.DeviceConfig{SMs: 1, MaxBlocksPerSM: 2})
		require.NoError(t, err)
		closeAtEnd(t, d)
		flags := gpu.Alloc[int32](d, "flags", 8)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 8}, Block: gpu.Dim3{X: 32}, Executor: ex}
		require.NoError(t, d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			b := t.BlockRank()
			if b > 0 {
				for flags.AtomicLoad(t, b-1, scope.Device) == 0 {
				}
			}
			t.SyncThreads()
			if t.ThreadRank() == 0 {
				flags.AtomicStore(t, b, 1, scope.Device)
			}
		}))
	})
}
