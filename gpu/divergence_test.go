package gpu_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// line returns the caller's line, to name the barrier a test expects.
func line() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}

// divergenceShape is a kernel whose threads do not all reach a barrier
// together, with what the error must say.
type divergenceShape struct {
	name    string
	threads int
	coop    bool
	kernel  func(site *atomic.Int64) gpu.Kernel
	want    []string // substrings of the DivergenceError; %d is the site's line
	// warnOK is whether the launch completes under DivergenceWarn: exits
	// count as arrived, but barriers at different sites still meet.
	warnOK bool
}

var divergenceShapes = []divergenceShape{
	{
		name: "exit at syncthreads", threads: 64, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.ThreadRank() >= 60 {
					return
				}
				site.Store(int64(line() + 1))
				t.SyncThreads()
			}
		},
		want: []string{"syncthreads at", "divergence_test.go:%d in block (0,0,0): threads (0,0,0)-(59,0,0) wait there; threads (60,0,0)-(63,0,0) exited"},
	},
	{
		name: "syncthreads at two sites", threads: 64, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.ThreadRank() < 32 {
					site.Store(int64(line() + 1))
					t.SyncThreads()
				} else {
					t.SyncThreads()
				}
			}
		},
		want: []string{"divergence_test.go:%d in block (0,0,0): threads (0,0,0)-(31,0,0) wait there; threads (32,0,0)-(63,0,0) are at syncthreads at"},
	},
	{
		name: "syncthreads at two sites, ranks interleaved", threads: 64, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.ThreadRank()%2 == 0 {
					site.Store(int64(line() + 1))
					t.SyncThreads()
				} else {
					t.SyncThreads()
				}
			}
		},
		want: []string{"divergence_test.go:%d in block (0,0,0): 32 threads [warp 0: 16 lanes; warp 1: 16 lanes] wait there; 32 threads [warp 0: 16 lanes; warp 1: 16 lanes] are at syncthreads at"},
	},
	{
		name: "exit at syncwarp", threads: 32, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.Lane() == 7 {
					return
				}
				site.Store(int64(line() + 1))
				t.SyncWarp(gpu.FullMask)
			}
		},
		want: []string{"syncwarp(mask 0xffffffff) at", "divergence_test.go:%d in block (0,0,0) warp 0: threads (0,0,0)-(6,0,0),(8,0,0)-(31,0,0) wait there; threads (7,0,0) exited"},
	},
	{
		name: "exit at shfl", threads: 32, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.Lane() >= 30 {
					return
				}
				site.Store(int64(line() + 1))
				gpu.ShflSync(t, 0xffffffff, int32(t.Lane()), 31, 32)
			}
		},
		want: []string{"shfl(mask 0xffffffff) at", "divergence_test.go:%d in block (0,0,0) warp 0: threads (0,0,0)-(29,0,0) wait there; threads (30,0,0)-(31,0,0) exited"},
	},
	{
		name: "exit at large tile sync", threads: 128, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				tile := gpu.TiledPartition(t, 64)
				if t.ThreadRank() == 70 {
					return
				}
				site.Store(int64(line() + 1))
				tile.Sync()
			}
		},
		want: []string{"tile.sync(ranks 64-127) at", "divergence_test.go:%d in block (0,0,0): threads (64,0,0)-(69,0,0),(71,0,0)-(127,0,0) wait there; threads (70,0,0) exited"},
	},
	{
		name: "exit at grid sync", threads: 32, coop: true, warnOK: true,
		kernel: func(site *atomic.Int64) gpu.Kernel {
			return func(t *gpu.Thread) {
				if t.GlobalID() == 40 {
					return
				}
				site.Store(int64(line() + 1))
				gpu.ThisGrid(t).Sync()
			}
		},
		want: []string{"grid.sync at", "divergence_test.go:%d: threads (0,0,0)-(31,0,0) of block (0,0,0), threads (0,0,0)-(7,0,0),(9,0,0)-(31,0,0) of block (1,0,0) wait there; threads (8,0,0) of block (1,0,0) exited"},
	},
}

func TestDivergence(t *testing.T) {
	for _, sh := range divergenceShapes {
		for _, mode := range []gpu.DivergenceMode{gpu.DivergenceFail, gpu.DivergenceWarn, gpu.DivergenceAllow} {
			t.Run(sh.name+"/"+mode.String(), func(t *testing.T) {
				eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
					d := newDevice(t)
					var site atomic.Int64
					cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: sh.threads}, Executor: ex, Divergence: mode, Cooperative: sh.coop}
					if !sh.coop {
						cfg.Grid.X = 1
					}
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
					err := d.Launch(ctx, cfg, sh.kernel(&site))
					if mode == gpu.DivergenceAllow {
						require.NoError(t, err)
						return
					}
					var de *gpu.DivergenceError
					require.ErrorAs(t, err, &de)
					require.Equal(t, mode == gpu.DivergenceWarn, de.Warn)
					require.Equal(t, int(site.Load()), de.Site.Line(), "the barrier's line: %v", err)
					for _, w := range sh.want {
						if strings.Contains(w, "%d") {
							w = fmt.Sprintf(w, site.Load())
						}
						require.Contains(t, err.Error(), w)
					}
					if mode == gpu.DivergenceWarn {
						require.Contains(t, err.Error(), "divergence warning")
						require.Len(t, err.(interface{ Unwrap() []error }).Unwrap(), 1, "only the warning: %v", err)
					}
				})
			})
		}
	}
}

// TestDivergenceGridListsFirstBlocks has one thread of a 12-block grid
// exit at a grid sync: the error names the waiting threads of the first
// eight blocks and counts the rest, so that it stays short for any grid.
func TestDivergenceGridListsFirstBlocks(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 12}, Block: gpu.Dim3{X: 32}, Executor: ex, Cooperative: true}
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.GlobalID() == 0 {
				return
			}
			gpu.ThisGrid(t).Sync()
		})
		var de *gpu.DivergenceError
		require.ErrorAs(t, err, &de)
		require.Contains(t, err.Error(), "threads (1,0,0)-(31,0,0) of block (0,0,0), threads (0,0,0)-(31,0,0) of block (1,0,0),")
		require.Contains(t, err.Error(), "threads (0,0,0)-(31,0,0) of block (7,0,0) and 128 threads of 4 more blocks wait there; threads (0,0,0) of block (0,0,0) exited")
		require.NotContains(t, err.Error(), "block (8,0,0)")
		require.Len(t, de.Waiting, 12*32-1, "the error keeps every waiting thread")
	})
}

// TestDivergenceDeadlock makes threads wait at different kinds of barrier,
// which can never meet: the launch ends with ErrDeadlock and the report
// names where each thread waits.
func TestDivergenceDeadlock(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		var warpLine, blockLine atomic.Int64
		cfg := gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 64}, Executor: ex}
		start := time.Now()
		err := d.Launch(context.Background(), cfg, func(t *gpu.Thread) {
			if t.ThreadRank() == 0 {
				warpLine.Store(int64(line() + 1))
				t.SyncWarp(gpu.FullMask) // lanes 1-31 are at the block barrier
				return
			}
			blockLine.Store(int64(line() + 1))
			t.SyncThreads()
		})
		require.Less(t, time.Since(start), 5*time.Second)
		require.ErrorIs(t, err, gpu.ErrDeadlock)
		var se *gpu.StallError
		require.ErrorAs(t, err, &se)
		require.Contains(t, err.Error(), fmt.Sprintf("threads (0,0,0) syncwarp(mask 0xffffffff) at %s", siteOf(warpLine.Load())))
		require.Contains(t, err.Error(), fmt.Sprintf("threads (1,0,0)-(63,0,0) syncthreads at %s", siteOf(blockLine.Load())))
		require.Len(t, se.Threads, 64)
	})
}

// siteOf returns "gpu/file:line" for line of the caller's file, as
// Site.String writes it.
func siteOf(line int64) string {
	_, file, _, _ := runtime.Caller(1)
	return fmt.Sprintf("gpu/%s:%d", filepath.Base(file), line)
}

func TestDivergenceModeString(t *testing.T) {
	t.Parallel()
	require.Equal(t, "divergence(9)", gpu.DivergenceMode(9).String())
	d := newDevice(t)
	err := d.Launch(context.Background(), gpu.LaunchConfig{Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}, Divergence: 9}, func(*gpu.Thread) {})
	require.ErrorContains(t, err, "unknown divergence(9) mode")
	require.False(t, errors.Is(err, gpu.ErrDeadlock))
}
