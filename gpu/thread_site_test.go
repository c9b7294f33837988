package gpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// storeAt is a helper kernels call: an out-of-range store in it is
// reported at its own line.
func storeAt(t *gpu.Thread, b gpu.Buffer[int32], i int, at *int) {
	*at = line() + 1
	b.Store(t, i, 1)
}

// TestThreadErrorSites: every way a thread ends with an error names the
// kernel line it ended at, for each executor.
func TestThreadErrorSites(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		buf := gpu.Alloc[int32](d, "buf", 4)
		cases := []struct {
			name string
			k    func(t *gpu.Thread, at *int)
			want string
		}{
			{"grid sync without a cooperative launch", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				gpu.ThisGrid(t).Sync()
			}, "Cooperative"},
			{"shuffle width", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				gpu.ShflSync(t, gpu.FullMask, int32(1), 0, 3)
			}, "width 3"},
			{"mask", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				t.SyncWarp(0)
			}, "does not name the calling lane"},
			{"tile size", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				gpu.TiledPartition(t, 3)
			}, "tiled_partition"},
			{"scope", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				buf.AtomicAdd(t, 0, 1, scope.Scope(42))
			}, "invalid"},
			{"index in a helper", func(t *gpu.Thread, at *int) { storeAt(t, buf, 9, at) }, "out of range"},
			{"panic", func(t *gpu.Thread, at *int) {
				*at = line() + 1
				panic(errors.New("kernel bug"))
			}, "kernel bug"},
			// runtime.Goexit is named at the kernel's own line whose call
			// led to it: the kernel below calls c.k.
			{"Goexit through a helper", func(t *gpu.Thread, at *int) { runtimeGoexit() }, "runtime.Goexit"},
		}
		for _, c := range cases {
			var at int
			kernelLine := line() + 3
			err := launch1D(d, ex, 1, 32, func(t *gpu.Thread) {
				if t.ThreadRank() == 5 {
					c.k(t, &at)
				}
			})
			if at == 0 {
				at = kernelLine
			}
			var te *gpu.ThreadError
			require.ErrorAs(t, err, &te, c.name)
			require.ErrorContains(t, err, c.want, c.name)
			require.Equal(t, at, te.Site.Line(), "%s: %v", c.name, err)
			require.ErrorContains(t, err, fmt.Sprintf("thread (5,0,0) of block (0,0,0) (global thread 5) at %s: ", te.Site), c.name)
		}
	})
}

// TestMisuseReportedOnce: a mistake every thread makes at one line is one
// error counting them, naming the first thread: a grid sync without a
// cooperative launch on 64 threads, a SyncWarp mask that leaves out 31
// lanes. Errors that differ stay apart.
func TestMisuseReportedOnce(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		err := launch1D(d, ex, 2, 32, func(t *gpu.Thread) { gpu.ThisGrid(t).Sync() })
		var te *gpu.ThreadError
		require.ErrorAs(t, err, &te)
		require.Equal(t, 64, te.Threads)
		require.Equal(t, 0, te.GlobalID, "the first thread")
		require.Equal(t, 1, strings.Count(err.Error(), "not cooperative"), "once: %v", err)
		require.Contains(t, err.Error(), "thread (0,0,0) of block (0,0,0) (global thread 0) and 63 other threads at ")

		err = launch1D(d, ex, 1, 32, func(t *gpu.Thread) { t.SyncWarp(0x1) })
		require.ErrorAs(t, err, &te)
		require.Equal(t, 31, te.Threads)
		require.Equal(t, 1, te.GlobalID)
		require.Equal(t, 1, strings.Count(err.Error(), "does not name the calling lane"), "once: %v", err)
		require.Contains(t, err.Error(), "(global thread 1) and 30 other threads at ")

		buf := gpu.Alloc[int32](d, "buf", 1)
		err = launch1D(d, ex, 1, 4, func(t *gpu.Thread) { buf.Store(t, 1+t.ThreadRank(), 1) })
		require.Equal(t, 4, strings.Count(err.Error(), "out of range"), "distinct indices, distinct errors: %v", err)
		require.NotContains(t, err.Error(), "other thread")
	})
}
