// Command warpguard runs the kernel catalog under the scoped race
// detector.
//
//	warpguard list
//	warpguard run KERNEL [-inject NAME] [-size default|paper] [-detector on|off] [-seed N] [-executor fibers|goroutines] [-json]
//	warpguard suite [-kernels GLOBS] [-v] [-json] [-size default|paper] [-seed N] [-executor fibers|goroutines] [-attempts N]
//	warpguard fuzz [-n N] [-configs LIST] [-seed N] [-v] [-json]
//	warpguard bench [-kernels GLOBS] [-configs LIST] [-runs N] [-warmup N] [-prime D] [-mintime D] [-cpus LIST] [-json] [-svg FILE] [-profile cpu|mem|mutex|block|trace]
//
// List prints every kernel with its injectable races. Run runs one
// configuration and prints the output check and every race report. Suite
// runs every kernel clean and with each injection, with detection off and
// on, and prints a row per configuration as it finishes, within 120
// columns (-v adds the race kinds), then a tally line. Bench measures
// each kernel under each detector configuration, with progress and the
// time left on stderr. Fuzz runs generated kernels under each
// configuration and counts its false positives and negatives against the
// oracle of package race/oracle. -kernels takes comma-separated path.Match
// patterns, such as 'micro/*,lib/scan'; the large-grid group, 2^20 to
// 2^22 threads a kernel, runs only when a pattern starting with large/
// names it (-kernels 'large/*'). Durations print with three
// significant digits; -json output keeps nanoseconds.
//
// Every subcommand's -h prints what it does and its flags, and exits 0.
// Exit codes: 0 for success; 66 when run reported races (the Go race
// detector's convention); 1 for a failed launch, a wrong output no race
// explains, or a suite with a failing configuration; 2 for a command line
// that does not parse or names no kernel, injection or configuration.
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
	exitError = 1  // a failed launch, a wrong output, a failed suite
	exitUsage = 2  // a command line that does not parse, as Go's tools exit
	exitRaces = 66 // as Go's race detector exits
)

const usage = `usage: warpguard COMMAND [flags]

warpguard runs CUDA-style kernels as grids of emulated GPU threads and
reports the scoped races they contain.

commands:
  list    the kernels and the races each can have switched in
  run     one kernel configuration: its output check and race reports
  suite   every kernel clean and with each injected race, one row each
  bench   each kernel's time under each detector configuration
  fuzz    random kernels: each configuration's misses and false alarms against an oracle

Run 'warpguard COMMAND -h' for a command's flags.
`

// subcommand returns the function of the subcommand called name, or nil.
func subcommand(name string) func(args []string, stdout, stderr io.Writer) int {
	switch name {
	case "list":
		return list
	case "run":
		return runOne
	case "suite":
		return suite
	case "bench":
		return benchCmd
	case "fuzz":
		return fuzzCmd
	}
	return nil
}

// run is the command with its arguments and outputs, returning the exit
// code, so tests can run it in process.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && subcommand(args[1]) != nil {
			return subcommand(args[1])([]string{"-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		if c := subcommand(name); c != nil {
			return c(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "warpguard: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
