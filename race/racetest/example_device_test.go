package racetest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// Total is library code that launches its own kernel: block 0 sums xs and
// publishes the sum behind a flag, and every other block waits for the
// flag and copies the sum out. Its fence is block-scoped, too narrow for
// the blocks that read the sum.
func Total(ctx context.Context, d *gpu.Device, xs []float32, blocks int) ([]float32, error) {
	in := gpu.FromHost(d, "xs", xs)
	sum, flag := gpu.Alloc[float32](d, "sum", 1), gpu.Alloc[int32](d, "flag", 1)
	out := gpu.Alloc[float32](d, "out", blocks)
	cfg := gpu.LaunchConfig{Name: "total", Grid: gpu.Dim3{X: blocks}, Block: gpu.Dim3{X: 1}}
	err := d.Launch(ctx, cfg, func(t *gpu.Thread) {
		if t.BlockRank() == 0 {
			var s float32
			for i := range in.Len() {
				s += in.Load(t, i)
			}
			sum.Store(t, 0, s)
			t.ThreadFenceBlock() // should be t.ThreadFence()
			flag.AtomicExch(t, 0, 1, scope.Device)
			return
		}
		for flag.AtomicAdd(t, 0, 0, scope.Device) == 0 {
		} // should be followed by t.ThreadFence(), the acquire
		out.Store(t, t.BlockRank(), sum.Load(t, 0))
	})
	return out.Host()[1:], err
}

// testTotal is the library's test, TestTotal(t *testing.T) in a real test
// file. Its one change for race detection is where the device comes from:
// racetest.Device instead of gpu.NewDevice. Every launch on it is checked,
// and the races fail the test when it ends.
func testTotal(t testing.TB) {
	d := racetest.Device(t)
	got, err := Total(t.Context(), d, []float32{1, 2, 3}, 2)
	if err != nil || got[0] != 6 {
		t.Errorf("Total = %v, %v; want [6]", got, err)
	}
}

// printer is a testing.TB that prints its failures and runs its cleanups
// when asked, standing in for the *testing.T a real test passes.
type printer struct {
	testing.TB
	cleanups []func()
}

func (*printer) Helper()                  {}
func (*printer) Context() context.Context { return context.Background() }
func (*printer) Errorf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
}
func (p *printer) Cleanup(f func()) { p.cleanups = append(p.cleanups, f) }

// cleanup runs the cleanups, last first, as a test's end does.
func (p *printer) cleanup() {
	for i := len(p.cleanups) - 1; i >= 0; i-- {
		p.cleanups[i]()
	}
}

// This example is a complete test file of a package whose kernels are
// launched by its own code. In a real test file testTotal is TestTotal,
// taking a *testing.T, and go test runs it; here printer stands in for go
// test and prints the failures.
func Example_device() {
	var gotest printer
	testTotal(&gotest)
	gotest.cleanup()
	// Output:
	// ==================
	// WARNING: SCOPED RACE (missing-device-fence)
	// Read of global "sum"[0] by thread (0,0,0) of block (1,0,0):
	//   weak load at race/racetest/example_device_test.go:35
	//
	// Previous write by thread (0,0,0) of block (0,0,0):
	//   weak store at race/racetest/example_device_test.go:28
	//
	// Nothing orders thread (0,0,0) of block (0,0,0)'s weak store at race/racetest/example_device_test.go:28 before this load: no barrier both threads passed, and no release of the first thread (a release store, or a fence then a strong write) reached the second through an acquire (an acquire load, or a strong read then a fence) with scopes that include both threads, directly or through a chain of such pairs. The two are threads of different blocks: after the write, __threadfence() then a strong write of a flag (or StoreRelease of device scope); before its access, the reader acquires the flag (LoadAcquire of device scope, or a strong read then __threadfence()). In a cooperative launch, a grid sync both pass also orders them.
	// ==================
}
