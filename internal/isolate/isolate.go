// Package isolate runs groups of a test's subtests in child processes of
// the test binary when the race detector is on and the tests run with
// -short. The race runtime keeps memory it never returns to the system:
// its state for every coroutine that ends (the fibers of each device a
// test closes or drops) and some for every goroutine. In children, each
// group's memory is returned when its child exits, so a package's whole
// table of kernels runs under -race in the memory of its largest group.
package isolate

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// childEnv marks a child process, which runs its group itself.
const childEnv = "WARPGUARD_ISOLATED_CHILD"

// Groups runs, for each group, the subtests of t whose names start with
// the group's slash-separated elements (such as "lib/scan") in a child
// process, one child at a time, and fails t with a child's output if the
// child fails. It reports whether it did: if not (the race detector is
// off, -short is not set, or this is already a child), the caller runs
// its subtests itself.
func Groups(t *testing.T, groups []string) bool {
	t.Helper()
	if !raceEnabled || !testing.Short() || os.Getenv(childEnv) != "" {
		return false
	}
	for _, g := range groups {
		t.Run(g, func(t *testing.T) { runChild(t, g) })
	}
	return true
}

// runChild runs the subtests of group g of the current top-level test in a
// child process.
func runChild(t *testing.T, g string) {
	top, _, _ := strings.Cut(t.Name(), "/")
	pattern := "^" + regexp.QuoteMeta(top) + "$"
	for _, e := range strings.Split(g, "/") {
		pattern += "/^" + regexp.QuoteMeta(e) + "$"
	}
	cmd := exec.Command(os.Args[0], "-test.run", pattern, "-test.short", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a child process: %v\n%s", pattern, err, out)
	}
	if !strings.Contains(string(out), "=== RUN   "+top+"/"+g) {
		t.Fatalf("%s in a child process ran no subtest:\n%s", pattern, out)
	}
}
