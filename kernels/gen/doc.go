// Package gen generates small random kernels for judging race detectors
// against the oracle of package race/oracle.
//
// A seed picks a [Kernel]: 1 to 3 blocks of up to 64 threads over a few
// words of global memory (data words x0-x3, flags f0-f1, locks l0-l1) and
// four words of shared memory per block (s0-s3). Every thread runs the
// same list of statements, each guarded by which threads take part: weak
// and strong accesses of random scopes, fences of random scope, acquire
// loads and release stores, locks built from atomicCAS or atomicExch,
// __syncthreads, full and partial __syncwarp, cooperative-groups tile
// syncs, a __ballot_sync (which orders no memory), and message passing,
// where one thread publishes data and raises a flag and other threads spin
// on the flag and read the data.
//
// Every kernel terminates: barriers are reached by every thread (a partial
// __syncwarp by exactly the lanes it names), a lock's critical section
// holds only accesses, and the thread that raises a flag never waits in
// that statement, so a thread waits at a statement only for threads that
// reach it or have passed it.
//
// A kernel prints as CUDA-like pseudo-code ([Kernel.String]), which with
// its seed and the schedule seed reproduces a failure.
//
// Each access runs at a source line of its own per memory granule
// (sites.go, written by sitesgen.go), so that a detector that reports each
// pair of racing lines once still reports each racing granule.
package gen

//go:generate go run sitesgen.go
