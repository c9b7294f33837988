package gen_test

import (
	"fmt"

	"github.com/warpguard/warpguard/kernels/gen"
)

// ExampleGenerate prints the kernel seed 17 picks, as a failing
// differential test does to reproduce it.
func ExampleGenerate() {
	fmt.Print(gen.Generate(17))
	// Output:
	// kernel gen-17 <<<2, 3>>>: global x[4] f[2] l[2], shared s[3]
	//   message: if (block == 1 && rank == 1) { weak x[2] = gid+1; weak x[3] = gid+1; __threadfence(); relaxed.block f[0] = 1 } else if (block == 1 && rank == 0) { while (acquire.device f[0] != 1) {}; __threadfence(); r = weak x[2]; r = weak x[3] }
	//   __syncthreads()
	//   if (block == 1 && rank == 2) volatile s[0] = gid+1
}
