package modpath

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRelMain: a kernel of package main, whose functions are named
// "main.f" whatever their directory, is named by its path in its module,
// as a program built with go build or go run ./cmd/tool gives it; a
// program built from files on the command line keeps the absolute path.
func TestRelMain(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{Path: "example.com/proj/cmd/tool", Main: debug.Module{Path: "example.com/proj"}}
	require.Equal(t, "cmd/tool/main.go", rel(bi, "/home/u/proj/cmd/tool/main.go", "main.kernel.func1"))
	require.Equal(t, "cmd/tool/main.go", rel(bi, "/home/u/proj/cmd/tool/main.go", "main.main"))
	require.Equal(t, "/elsewhere/main.go", rel(bi, "/elsewhere/main.go", "main.kernel"), "a file not where the package says")
	bi.Path = "example.com/proj/cmd/tool.test"
	require.Equal(t, "cmd/tool/main_test.go", rel(bi, "/home/u/proj/cmd/tool/main_test.go", "main.TestKernel"))
	bi.Path = "command-line-arguments"
	require.Equal(t, "/tmp/x/main.go", rel(bi, "/tmp/x/main.go", "main.kernel"))
}
