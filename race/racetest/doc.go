// Package racetest runs kernels under a scoped race detector in tests and
// fails the test with every race found, the way `go test -race` fails a
// test on a Go data race. The detector is of the Exact family, package
// race's default: every report is a race of the execution that ran, and
// every race it had is reported, on every executor.
//
// [Launch] checks one launch. [Device] returns a device whose every
// launch is checked, for code that launches kernels itself: hand it the
// device in the test, and the races of its launches fail the test when
// it ends. [Explore] runs a kernel under many seeded schedules, since the
// races a launch shows depend on how its threads interleave. [Expect]
// asserts that a race was reported, and consumes it, for tests of code
// that races on purpose.
//
// [Launch] runs under the test's context (testing.TB.Context) and ends
// four seconds before the test's deadline (time for the runtime to give
// up on a thread it cannot stop, two seconds, and to report), or half the
// time left when the call is closer to the deadline than eight seconds,
// so a kernel that spins forever fails its test with the runtime's
// listing of where each thread was; the [Timeout] option sets a shorter
// deadline. A [Device]'s launches run under the context their caller
// passes, and stop at the same point before the test's deadline
// (gpu.DeviceConfig.Deadline) whatever that context is, returning the
// listing to their caller; the Timeout option bounds each of them.
//
// # What -race costs
//
// Under `go test -race`, Go's race runtime slows every instrumented
// function, warpguard's own included, and keeps state for each goroutine
// and each coroutine: a thread context and a bounded history of its recent
// events, kept for as long as the goroutine lives. A device runs its
// threads on coroutines (fibers), one for each thread parked at a barrier
// or collective at once, and keeps them from launch to launch rather than
// ending them, since the race runtime never reclaims the state of a
// coroutine that ends. So memory under -race grows with the most threads
// a device holds parked at once, at most its resident threads (SMs times
// MaxThreadsPerSM; a smaller [DeviceConfig] lowers it), and then stays
// flat however many launches follow. [gpu.Device.Close] (which [Device]
// calls when the test ends) ends the fibers, for goleak, but the race
// runtime keeps what it held for them: each device a test process makes
// costs its share for good, so tests that launch much share a device.
// The Goroutines executor's goroutines are kept and reused the same way,
// since the race runtime also keeps a little of each ended goroutine's
// state.
//
// # Environment
//
// The WARPGUARD environment variable configures the detector as GORACE
// configures Go's: space-separated key=value pairs, such as
//
//	WARPGUARD="halt_on_error=1 max_reports=10" go test ./...
//
// The keys are
//
//   - halt_on_error=1: stop a launch at its first race (default 0).
//   - max_reports=N: keep at most N distinct races; past them, the test
//     says how many more there were (default 100).
//   - history=0: do not record the site of every access, which makes
//     checks cheaper but leaves the previous side of a report without its
//     file:line and call stack (default 1 here; race.Options' default 0).
//   - family=iguard: check by iGUARD's published rules, the IGUARD family,
//     instead of scoped happens-before, the Exact family (race.Options.Family;
//     default exact). precise=0 and precise=1 are the earlier spellings of
//     family=iguard and family=exact.
//   - granularity=N: the bytes of dynamic shared memory one metadata
//     entry covers (race.Options.Granularity; default 4): neighbours
//     narrower than it share an entry, and writes of two threads to them
//     are reported; granularity=1 checks every byte on its own.
//   - log_path=PATH: also append every report to the file PATH.<pid>.
//   - strip_path_prefix=PREFIX: cut PREFIX from the file paths of
//     reports, which are already relative to their module's root
//     ("pkg/x_test.go:12").
//
// Options given in code win over the environment. A malformed value fails
// the test, naming the key.
package racetest
