package bench_test

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
)

// ExampleEvaluate judges the 1-D convolution clean and with its injected
// race: the output check, the race kinds reported, false positives and
// misses, as `warpguard suite` prints them.
func ExampleEvaluate() {
	k := kernels.Scor1DConv()
	for _, c := range bench.Configs(kernels.Catalog{k}, kernels.Default, 1) {
		r := bench.Evaluate(context.Background(), c)
		fmt.Printf("%q: output ok %v, reported %v, false positives %d, missed %d, ok %v\n",
			c.Inject, r.OutputOK(), r.Found(), r.FalsePositives, r.Missed(), r.OK())
	}
	// Output:
	// "": output ok true, reported [], false positives 0, missed 0, ok true
	// "all-block-atomics": output ok true, reported [scoped-atomic], false positives 0, missed 0, ok true
}
