package kernels_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// detect runs one configuration of k under a race detector and prints the
// output check and the kinds of race reported.
func detect(k *kernels.Entry, inject string) {
	d, _ := gpu.NewDevice(gpu.DeviceConfig{})
	r, err := k.Prepare(d, kernels.Params{Seed: 42, Inject: inject})
	if err != nil {
		fmt.Println(err)
		return
	}
	det := race.New(race.Options{})
	err = r.Launch(context.Background(), func(ctx context.Context, cfg gpu.LaunchConfig, kern gpu.Kernel) error {
		cfg.Observer = det
		return d.Launch(ctx, cfg, kern)
	})
	kinds := map[race.Kind]bool{}
	for _, rep := range det.Reports() {
		kinds[rep.Kind] = true
	}
	fmt.Printf("%s [%s]: launch %v, check %v, races %v\n", k.Name, inject, err, r.Check(), kinds)
}

// ExampleReduce sums 100,000 ints on the emulated GPU, first as written
// (shuffles, shared memory, a device-scope atomic for the total), then with
// the blocks adding into the total at block scope: the sum is still right
// on this emulator, but the detector reports the scoped-atomic race a real
// GPU would lose updates to.
func ExampleReduce() {
	detect(kernels.LibReduce(), "")
	detect(kernels.LibReduce(), "block-scope-total")
	// Output:
	// lib/reduce []: launch <nil>, check <nil>, races map[]
	// lib/reduce [block-scope-total]: launch <nil>, check <nil>, races map[scoped-atomic:true]
}

// ExampleScan runs the decoupled look-back scan clean, and with its tiles
// publishing their status words with a block-scope exchange: the
// detector reports the atomic's scope, too narrow for the other blocks
// that read the word.
func ExampleScan() {
	detect(kernels.LibScan(), "")
	detect(kernels.LibScan(), "block-scope-status")
	// Output:
	// lib/scan []: launch <nil>, check <nil>, races map[]
	// lib/scan [block-scope-status]: launch <nil>, check <nil>, races map[scoped-atomic:true]
}
