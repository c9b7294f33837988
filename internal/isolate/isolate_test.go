package isolate_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/internal/isolate"
)

// parentEnv carries the pid of the process that called Groups.
const parentEnv = "ISOLATE_TEST_PARENT"

// TestGroups runs two groups of subtests: under -race -short each group
// runs in a child process, otherwise in this one.
func TestGroups(t *testing.T) {
	if os.Getenv(parentEnv) == "" {
		t.Setenv(parentEnv, strconv.Itoa(os.Getpid()))
	}
	if isolate.Groups(t, []string{"a", "b/c"}) {
		return
	}
	inChild := os.Getenv(parentEnv) != strconv.Itoa(os.Getpid())
	for _, name := range []string{"a/x", "a/y", "b/c/z"} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, raceEnabled && testing.Short(), inChild, "subtest in a child process")
		})
	}
}
