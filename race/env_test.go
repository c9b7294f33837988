package race_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race"
)

// TestParseEnv: every key sets its option, and Apply lays exactly the keys
// given over the caller's options.
func TestParseEnv(t *testing.T) {
	t.Parallel()
	e, err := race.ParseEnv(" halt_on_error=1  max_reports=10 history=0 family=iguard log_path=/tmp/wg strip_path_prefix=/src/ ")
	require.NoError(t, err)
	require.Equal(t, race.Options{HaltOnFirst: true, MaxReports: 10, Family: race.IGUARD}, e.Options)
	require.Equal(t, "/tmp/wg", e.LogPath)
	require.Equal(t, "x.go:3", e.Strip("/src/x.go:3"))
	o := e.Apply(race.Options{History: true, MaxReports: 3, Granularity: 8})
	require.Equal(t, race.Options{HaltOnFirst: true, MaxReports: 10, Granularity: 8, Family: race.IGUARD}, o, "every key given replaces the caller's value")
	require.Equal(t, race.Options{History: true}, race.Env{}.Apply(race.Options{History: true}), "an empty value changes nothing")
	for in, want := range map[string]race.Family{"precise=1": race.Exact, "precise=0": race.IGUARD, "family=exact": race.Exact} {
		p, err := race.ParseEnv(in)
		require.NoError(t, err)
		require.Equal(t, race.Options{Family: want, History: true}, p.Apply(race.Options{History: true, Family: 1 - want, Precise: true}), in)
	}
}

// TestParseEnvErrorsNameTheKey: a bad value names its key, the variable
// and what the key wants.
func TestParseEnvErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"halt_on_error=yes":      `halt_on_error="yes": want 0 or 1`,
		"max_reports=0":          `max_reports="0": want a positive integer`,
		"max_reports=ten":        `max_reports="ten": want a positive integer`,
		"history=1 halt=1":       `unknown key "halt"`,
		"history":                `"history" is not key=value`,
		"history=1 precise=true": `precise="true": want 0 or 1`,
		"family=fast":            `unknown family "fast" (want exact or iguard)`,
		"granularity=3":          `granularity="3": want 1, 2, 4 or 8`,
		"granularity=16":         `granularity="16": want 1, 2, 4 or 8`,
	} {
		_, err := race.ParseEnv(in)
		require.ErrorContains(t, err, want, in)
		require.ErrorContains(t, err, "WARPGUARD", in)
		require.Equal(t, 1, strings.Count(err.Error(), "race:"), "one prefix: %v", err)
	}
	for _, in := range []string{"family=IGUARD", "family=Iguard"} {
		e, err := race.ParseEnv(in)
		require.NoError(t, err, in)
		require.Equal(t, race.IGUARD, e.Options.Family, in)
	}
}

// A program reads WARPGUARD (os.Getenv(race.EnvVar)) and lays the keys it
// sets over its own options.
func ExampleParseEnv() {
	env, err := race.ParseEnv("halt_on_error=1 max_reports=5")
	if err != nil {
		fmt.Println(err)
		return
	}
	opt := env.Apply(race.Options{History: true})
	fmt.Println(opt.HaltOnFirst, opt.MaxReports, opt.History)
	_, err = race.ParseEnv("max_reports=many")
	fmt.Println(err)
	// Output:
	// true 5 true
	// race: WARPGUARD: max_reports="many": want a positive integer
}

// TestEnvLog: Log appends each report, its path prefix cut, to
// LogPath.<pid>, and writes nothing without a LogPath or reports.
func TestEnvLog(t *testing.T) {
	dir := t.TempDir()
	e := race.Env{LogPath: filepath.Join(dir, "wg"), StripPathPrefix: "/src/"}
	r := race.Report{Kind: race.MissingDeviceFence, Launch: "k"}
	require.NoError(t, e.Log(nil))
	require.NoError(t, race.Env{}.Log([]race.Report{r}))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing to log, no file")
	require.NoError(t, e.Log([]race.Report{r}))
	require.NoError(t, e.Log([]race.Report{r}))
	b, err := os.ReadFile(fmt.Sprintf("%s.%d", e.LogPath, os.Getpid()))
	require.NoError(t, err)
	want := e.Strip(r.String()) + "\n"
	require.Equal(t, strings.Repeat(want, 2), string(b), "two appends")
}

// TestGranularityKey: granularity=N reaches Options.Granularity, and
// only when set.
func TestGranularityKey(t *testing.T) {
	t.Parallel()
	e, err := race.ParseEnv("granularity=1")
	require.NoError(t, err)
	require.Equal(t, 1, e.Apply(race.Options{Granularity: 4}).Granularity)
	e, err = race.ParseEnv("history=1")
	require.NoError(t, err)
	require.Equal(t, 4, e.Apply(race.Options{Granularity: 4}).Granularity)
}
