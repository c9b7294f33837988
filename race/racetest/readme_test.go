package racetest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeSnippet runs the README's test file as a module of its own,
// which uses this one, and checks that it fails with the report the
// README shows, line numbers included.
func TestReadmeSnippet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module: not under -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	code, want := readmeTest(t, string(readme))

	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	mod := "module example.com/publish\n\ngo 1.26.0\n\nrequire github.com/warpguard/warpguard v0.0.0\n\nreplace github.com/warpguard/warpguard => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "publish_test.go"), []byte(code), 0o644))

	cmd := exec.CommandContext(t.Context(), "go", "test", "-mod=mod", "-count=1", ".")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOWORK=off", "GOFLAGS=", "WARPGUARD=")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the README's test fails on its race:\n%s", out)
	got := string(out)
	for _, line := range want {
		require.Contains(t, got, line, "the README shows what go test prints")
	}
}

// readmeTest returns the README's test file, the first Go block of its
// racetest section, and the report lines of the output it shows after.
func readmeTest(t *testing.T, readme string) (code string, report []string) {
	t.Helper()
	blocks := regexp.MustCompile("(?s)```(go)?\n(.*?)```").FindAllStringSubmatch(readme, -1)
	for i, b := range blocks {
		if b[1] != "go" || !strings.Contains(b[2], "racetest.Launch(t,") {
			continue
		}
		require.Less(t, i+1, len(blocks), "the README shows the test's output after it")
		for _, l := range strings.Split(blocks[i+1][2], "\n") {
			if l = strings.TrimSpace(l); strings.Contains(l, "_test.go:") || strings.HasPrefix(l, "WARNING") {
				report = append(report, l)
			}
		}
		require.NotEmpty(t, report)
		return b[2], report
	}
	t.Fatal("the README has no Go block calling racetest.Launch")
	return "", nil
}
