package gpu_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/gpu"
)

// boom panics two calls below the kernel, so that its stack has frames
// of kernel code between the panic and the runtime's.
//
//go:noinline
func boom(v []int) int { return v[3] }

// TestPanicStackStartsAtThePanic panics in code a kernel calls, on each
// executor: the PanicError's stack starts with the goroutine line and the
// panic call, shows the kernel's frames, and holds none of the recovery's
// or the executor's.
func TestPanicStackStartsAtThePanic(t *testing.T) {
	eachExecutor(t, func(t *testing.T, ex gpu.Executor) {
		d := newDevice(t)
		err := launch1D(d, ex, 1, 1, func(t *gpu.Thread) { _ = boom(nil) })
		var pe *gpu.PanicError
		require.ErrorAs(t, err, &pe)
		lines := strings.Split(strings.TrimSpace(string(pe.Stack)), "\n")
		require.True(t, strings.HasPrefix(lines[0], "goroutine "), "%s", pe.Stack)
		require.True(t, strings.HasPrefix(lines[1], "panic("), "the panic call comes first: %s", pe.Stack)
		require.Contains(t, string(pe.Stack), "gpu_test.boom(")
		require.Contains(t, string(pe.Stack), "TestPanicStackStartsAtThePanic")
		require.True(t, strings.HasPrefix(lines[len(lines)-1], "\t") && strings.Contains(lines[len(lines)-1], "panic_stack_test.go"),
			"the kernel's frame comes last: %s", pe.Stack)
		for _, gone := range []string{"runtime/debug.Stack", "gpu.recovered", "gpu.(*", "iter.Pull", "created by"} {
			require.NotContains(t, string(pe.Stack), gone)
		}
	})
}
