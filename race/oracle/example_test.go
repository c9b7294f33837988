package oracle_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/oracle"
	"github.com/warpguard/warpguard/scope"
)

// ExampleLaunch judges message passing between two blocks whose reader
// polls the flag with volatile loads and never acquires: the writer's
// fence is not enough, and the data races.
func ExampleLaunch() {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	data, flag := gpu.Alloc[int32](d, "data", 1), gpu.Alloc[int32](d, "flag", 1)
	cfg := gpu.LaunchConfig{Name: "message", Grid: gpu.Dim3{X: 2}, Block: gpu.Dim3{X: 1}}
	res, err := oracle.Launch(context.Background(), d, cfg, func(t *gpu.Thread) {
		if t.BlockRank() == 0 {
			data.Store(t, 0, 42)
			t.Fence(scope.Device)
			flag.StoreVolatile(t, 0, 1)
			return
		}
		for flag.LoadVolatile(t, 0) == 0 {
		}
		_ = data.Load(t, 0) // no fence or acquire before this read
	})
	fmt.Println(err)
	for _, r := range res.Races {
		fmt.Println(r)
	}
	// Output:
	// <nil>
	// missing-device-fence on global "data" granule 0: weak store by thread 0 of block 0, weak load by thread 0 of block 1
}
