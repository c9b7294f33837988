package modpath

import (
	"io/fs"
	"os"
	"path/filepath"
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
	require.Equal(t, "cmd/tool/main.go", rel(bi, "/home/u/proj/cmd/tool/main.go", "main.kernel.func1", noFiles))
	require.Equal(t, "cmd/tool/main.go", rel(bi, "/home/u/proj/cmd/tool/main.go", "main.main", noFiles))
	require.Equal(t, "/elsewhere/main.go", rel(bi, "/elsewhere/main.go", "main.kernel", noFiles), "a file not where the package says")
	bi.Path = "example.com/proj/cmd/tool.test"
	require.Equal(t, "cmd/tool/main_test.go", rel(bi, "/home/u/proj/cmd/tool/main_test.go", "main.TestKernel", noFiles))
	bi.Path = "command-line-arguments"
	require.Equal(t, "/tmp/x/main.go", rel(bi, "/tmp/x/main.go", "main.kernel", noFiles))
}

// noFiles is a read that finds no file.
func noFiles(name string) ([]byte, error) { return nil, fs.ErrNotExist }

// TestRelByGoMod: a package whose module the build information does not
// list, as a test binary's dependencies are not, is named from the root
// of the first go.mod above its file, if that module holds the package;
// a go.mod of another module, or none, leaves the file as it is.
func TestRelByGoMod(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	other := filepath.Join(root, "other")
	require.NoError(t, os.MkdirAll(filepath.Join(other, "kernels", "device"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("// a library\nmodule example.com/other // its path\n\ngo 1.26\n"), 0o644))
	file := filepath.Join(other, "kernels", "device", "reduce.go")
	bi := &debug.BuildInfo{Path: "example.com/proj.test", Main: debug.Module{Path: "example.com/proj"}}
	require.Equal(t, "kernels/device/reduce.go", rel(bi, file, "example.com/other/kernels/device.Reduce[...]", os.ReadFile))
	require.Equal(t, "kernels/device/reduce.go", Rel(file, "example.com/other/kernels/device.Reduce"))
	require.Equal(t, file, rel(bi, file, "example.com/third/kernels/device.Reduce", os.ReadFile), "a go.mod of another module")
	require.Equal(t, file, rel(bi, file, "example.com/other/device.Reduce", os.ReadFile), "a file not where the package says")
	lone := filepath.Join(root, "lone", "x.go")
	require.Equal(t, lone, rel(bi, lone, "example.com/lone.F", os.ReadFile), "no go.mod above")
}
