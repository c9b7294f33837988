// Command warpguard runs the kernel catalog under the scoped race
// detector.
//
//	warpguard list
//	warpguard run KERNEL [-inject NAME] [-size default|paper] [-detector on|off] [-seed N] [-executor fibers|goroutines] [-json]
//	warpguard suite [-size default|paper] [-json] [-kernels GLOB] [-seed N] [-executor fibers|goroutines] [-attempts N]
//	warpguard bench [-kernels GLOB] [-configs LIST] [-runs N] [-warmup N] [-prime D] [-mintime D] [-cpus LIST] [-json] [-svg FILE] [-profile cpu|mem|mutex|block|trace]
//
// List prints every kernel with its injectable races. Run runs one
// configuration and prints the output check and every race report; it
// exits 0 when the output is right and no race was reported, 66 when races
// were reported (the Go race detector's convention) and 1 on an error: a
// bad flag, a failed launch, or a wrong output with no race to explain
// it. Suite runs every kernel clean and with each injection, with
// detection off and on, and prints one row per configuration; it exits 0
// only when every configuration is ok. Bench measures each kernel under
// each detector configuration (see benchcmd.go), after running the first
// kernel untimed for -prime (1s): a fresh process may run slower at first
// on a virtual machine. -cpus repeats the whole measurement at each
// GOMAXPROCS listed. An injected configuration whose race a run misses is
// run again, up to -attempts runs: a detector sees only the interleavings
// that happen.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitRaces = 66 // as Go's race detector exits
)

const usage = `usage:
  warpguard list
  warpguard run KERNEL [-inject NAME] [-size default|paper] [-detector on|off] [-seed N] [-executor fibers|goroutines] [-json]
  warpguard suite [-size default|paper] [-json] [-kernels GLOB] [-seed N] [-executor fibers|goroutines] [-attempts N]
  warpguard bench [-kernels GLOB] [-configs LIST] [-runs N] [-warmup N] [-prime D] [-mintime D] [-cpus LIST] [-json] [-svg FILE] [-profile cpu|mem|mutex|block|trace]
`

// run is the command with its arguments and outputs, returning the exit
// code, so tests can run it in process.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError
	}
	switch args[0] {
	case "list":
		return list(args[1:], stdout, stderr)
	case "run":
		return runOne(args[1:], stdout, stderr)
	case "suite":
		return suite(args[1:], stdout, stderr)
	case "bench":
		return benchCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "warpguard: unknown command %q\n%s", args[0], usage)
	return exitError
}
