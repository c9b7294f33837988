package modpath_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/internal/modpath"
)

func TestPackage(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"github.com/warpguard/warpguard/race.(*Detector).Access":          "github.com/warpguard/warpguard/race",
		"github.com/warpguard/warpguard/race/racetest_test.Example.func1": "github.com/warpguard/warpguard/race/racetest",
		"github.com/warpguard/warpguard/gpu.Buffer[...].Load":             "github.com/warpguard/warpguard/gpu",
		"github.com/warpguard/warpguard/gpu.F[github.com/x/y.T]":          "github.com/warpguard/warpguard/gpu",
		"main.main":      "main",
		"runtime.goexit": "runtime",
		"nopackage":      "",
	}
	for fn, want := range cases {
		require.Equal(t, want, modpath.Package(fn), fn)
	}
}

// TestRel: this file, named by this test's own frame, is
// internal/modpath/modpath_test.go in the module, whatever the checkout's
// directory; a file outside the module stays as it is.
func TestRel(t *testing.T) {
	t.Parallel()
	pc, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	fn := runtime.FuncForPC(pc).Name()
	require.Equal(t, "internal/modpath/modpath_test.go", modpath.Rel(file, fn))
	require.Equal(t, "internal/modpath/modpath_test.go", modpath.Rel("github.com/warpguard/warpguard/internal/modpath/modpath_test.go", fn),
		"a -trimpath build's file name")
	require.Equal(t, "internal/modpath/modpath_test.go", modpath.Rel("internal/modpath/modpath_test.go", fn), "a relative path again")
	require.Equal(t, "/elsewhere/x.go", modpath.Rel("/elsewhere/x.go", fn), "not where the package lies")
	require.Equal(t, "/usr/lib/go/src/fmt/print.go", modpath.Rel("/usr/lib/go/src/fmt/print.go", "fmt.Println"), "the standard library is no module of the build")
	require.Equal(t, "doc.go", modpath.Rel("/src/warpguard/doc.go", "github.com/warpguard/warpguard.F"), "the module's root package")
}
