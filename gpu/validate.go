package gpu

import (
	"context"
	"errors"
	"fmt"
)

// CUDA's launch limits beyond those in DeviceConfig.
const (
	maxBlockX, maxBlockY, maxBlockZ = 1024, 1024, 64
	maxGridX, maxGridYZ             = 1<<31 - 1, 65535
)

// ErrCooperativeLaunchTooLarge is returned for a cooperative launch whose
// grid does not fit in the device's resident block slots at once, as CUDA
// returns cudaErrorCooperativeLaunchTooLarge.
var ErrCooperativeLaunchTooLarge = errors.New("gpu: cooperative launch too large")

// newLaunch validates cfg and prepares a launch of k, or returns an error
// naming the first thing that is wrong.
func (d *Device) newLaunch(cfg LaunchConfig, k Kernel) (*launch, error) {
	if cfg.Name == "" {
		cfg.Name = "kernel"
	}
	if k == nil {
		return nil, fmt.Errorf("gpu: %s: nil kernel", cfg.Name)
	}
	grid, block := cfg.Grid.norm(), cfg.Block.norm()
	if err := d.validate(cfg, grid, block); err != nil {
		return nil, fmt.Errorf("gpu: %s: %w", cfg.Name, err)
	}
	cfg.Observer = d.observer(cfg.Observer)
	if cfg.Timeout == 0 {
		cfg.Timeout = d.cfg.Timeout
	}
	l := &launch{d: d, cfg: cfg, kernel: k, stopCh: make(chan struct{}), seq: sequencersOf(cfg.Observer)}
	ws := d.cfg.WarpSize
	l.g = Grid{
		ID: d.nextID.Add(1), Name: cfg.Name, Device: d,
		GridDim: grid, BlockDim: block, Blocks: grid.Size(), BlockSize: block.Size(),
		WarpSize: ws, Warps: (block.Size() + ws - 1) / ws, Cooperative: cfg.Cooperative,
	}
	l.g.Threads = l.g.Blocks * l.g.BlockSize
	resident := d.residentBlocks(l.g.BlockSize)
	if cfg.Cooperative && l.g.Blocks > resident {
		return nil, fmt.Errorf("%w: %s: %d blocks of %d threads, but the device holds %d such blocks at once",
			ErrCooperativeLaunchTooLarge, cfg.Name, l.g.Blocks, l.g.BlockSize, resident)
	}
	l.slots = min(resident, l.g.Blocks)
	l.sched = newScheduler(cfg, l.g.Blocks)
	if cfg.Cooperative {
		l.coop = &coop{live: l.g.Threads, unfinished: l.g.Blocks}
	}
	if cfg.Deterministic {
		l.turns = newTurns(l.slots, l.stopCh)
		l.preemptive = cfg.Schedule == ScheduleRandom
	}
	l.watch = make([]slotWatch, l.slots)
	l.window = d.watchdog(cfg)
	return l, nil
}

func (d *Device) validate(cfg LaunchConfig, grid, block Dim3) error {
	switch {
	case block.X < 1 || block.Y < 1 || block.Z < 1:
		return fmt.Errorf("block dimensions %v must be positive", cfg.Block)
	case block.X > maxBlockX || block.Y > maxBlockY || block.Z > maxBlockZ:
		return fmt.Errorf("block dimensions %v exceed the limits (%d,%d,%d)", block, maxBlockX, maxBlockY, maxBlockZ)
	case block.Size() > d.cfg.MaxThreadsPerBlock:
		return fmt.Errorf("block %v has %d threads; the device allows %d", block, block.Size(), d.cfg.MaxThreadsPerBlock)
	case grid.X < 1 || grid.Y < 1 || grid.Z < 1:
		return fmt.Errorf("grid dimensions %v must be positive", cfg.Grid)
	case grid.X > maxGridX || grid.Y > maxGridYZ || grid.Z > maxGridYZ:
		return fmt.Errorf("grid dimensions %v exceed the limits (%d,%d,%d)", grid, maxGridX, maxGridYZ, maxGridYZ)
	case cfg.DynamicShared < 0 || cfg.DynamicShared > d.cfg.SharedMemPerBlock:
		return fmt.Errorf("dynamic shared memory of %d bytes; the device allows 0 to %d per block", cfg.DynamicShared, d.cfg.SharedMemPerBlock)
	case cfg.Executor > Goroutines:
		return fmt.Errorf("unknown %v", cfg.Executor)
	case cfg.Divergence > DivergenceAllow:
		return fmt.Errorf("unknown %v mode", cfg.Divergence)
	case cfg.Schedule > ScheduleRandom:
		return fmt.Errorf("unknown %v", cfg.Schedule)
	case cfg.Deterministic && cfg.Executor != Fibers:
		return fmt.Errorf("a deterministic launch needs the fibers executor, not %v", cfg.Executor)
	case cfg.Timeout < 0:
		return fmt.Errorf("negative timeout %v", cfg.Timeout)
	case nilObserver(cfg.Observer):
		return fmt.Errorf("LaunchConfig.Observer is a nil %T; leave the Observer nil for a launch with none", cfg.Observer)
	}
	if grid.Size() > maxThreads/block.Size() {
		return fmt.Errorf("grid %v of blocks %v has more than 2^40 threads", grid, block)
	}
	return nil
}

// maxThreads bounds a launch's threads, so that every count and id of a
// launch fits an int with room to spare.
const maxThreads = 1 << 40

// usable returns why d cannot launch with ctx, or nil: a nil device, one
// not made by NewDevice, or a nil context.
func (d *Device) usable(ctx context.Context) error {
	switch {
	case d == nil:
		return errors.New("gpu: Launch on a nil *Device")
	case !d.made():
		return errors.New("gpu: Launch on a Device not made by NewDevice")
	case ctx == nil:
		return errors.New("gpu: Launch with a nil context.Context")
	}
	return nil
}

// residentBlocks returns how many blocks of n threads the device holds at
// once: its SMs times the blocks one SM holds.
func (d *Device) residentBlocks(n int) int {
	perSM := min(d.cfg.MaxBlocksPerSM, d.cfg.MaxThreadsPerSM/n)
	return d.cfg.SMs * max(perSM, 1)
}
