package racetest_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
	"github.com/warpguard/warpguard/race/racetest"
	"github.com/warpguard/warpguard/scope"
)

// A producer in block 0 publishes data with a block-scope fence, which
// orders its writes only for its own block; the consumer in block 1 reads
// data after seeing the flag. In a test, racetest.Launch(t, ...) fails the
// test with this report, as `go test -race` does for a Go data race.
func ExampleLaunch() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	data := gpu.Alloc[float32](d, "data", 1)
	flag := gpu.Alloc[int32](d, "flag", 1)
	cfg := gpu.LaunchConfig{Name: "publish", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	racetest.Launch(&printer{}, d, cfg, func(t *gpu.Thread) {
		if t.BlockRank() == 0 {
			data.Store(t, 0, 42)
			t.ThreadFenceBlock() // should be t.ThreadFence()
			flag.AtomicExch(t, 0, 1, scope.Device)
			return
		}
		for flag.AtomicAdd(t, 0, 0, scope.Device) == 0 {
		} // should be followed by t.ThreadFence(), the acquire
		_ = data.Load(t, 0)
	})
	// Output:
	// ==================
	// WARNING: SCOPED RACE (missing-device-fence)
	// Read of global "data"[0] by thread (0,0,0) of block (1,0,0):
	//   weak load at race/racetest/example_test.go:31
	//
	// Previous write by thread (0,0,0) of block (0,0,0):
	//   weak store at race/racetest/example_test.go:24
	//
	// Nothing orders thread (0,0,0) of block (0,0,0)'s weak store at race/racetest/example_test.go:24 before this load: no barrier both threads passed, and no release of the first thread (a release store, or a fence then a strong write) reached the second through an acquire (an acquire load, or a strong read then a fence) with scopes that include both threads, directly or through a chain of such pairs. The two are threads of different blocks: after the write, __threadfence() then a strong write of a flag (or StoreRelease of device scope); before its access, the reader acquires the flag (LoadAcquire of device scope, or a strong read then __threadfence()). In a cooperative launch, a grid sync both pass also orders them.
	// ==================
}

// A test of a kernel that races on purpose expects the race, on a shared
// array here, and the device's check at the test's end passes.
func ExampleExpect() {
	t := &printer{} // the test's *testing.T
	d := racetest.Device(t)
	cfg := gpu.LaunchConfig{Name: "unsynced", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 64}}
	_ = d.Launch(context.Background(), cfg, func(th *gpu.Thread) {
		tile := gpu.Shared[int32](th, "tile", 64)
		tile.Store(th, th.ThreadRank(), 1)
		_ = tile.Load(th, 63-th.ThreadRank()) // no __syncthreads before it
	})
	rs := racetest.Expect(t, racetest.DetectorOf(d), race.MissingBlockFence, racetest.Shared("tile"))
	fmt.Println(rs[0].Kind, "on shared", rs[0].Mem.Name)
	t.cleanup() // the test's end: no race is left
	// Output:
	// missing-block-fence on shared tile
}

// A correct message passing through global memory passes every seed of
// Explore when Setup clears the flag before each one: otherwise a later
// seed would start with the flag the previous run set.
func ExampleExplore() {
	t := &printer{} // the test's *testing.T
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	data, flag := gpu.Alloc[int32](d, "data", 1), gpu.Alloc[int32](d, "flag", 1)
	cfg := gpu.LaunchConfig{Name: "handoff", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	seed := racetest.Explore(t, 16, d, cfg, func(t *gpu.Thread) {
		if t.BlockRank() == 0 {
			data.Store(t, 0, 42)
			flag.StoreRelease(t, 0, 1, scope.Device)
			return
		}
		for flag.LoadAcquire(t, 0, scope.Device) == 0 {
		}
		_ = data.Load(t, 0)
	}, racetest.Setup(func() { flag.Fill(0) }))
	fmt.Println("failing seed:", seed)
	// Output:
	// failing seed: 0
}
