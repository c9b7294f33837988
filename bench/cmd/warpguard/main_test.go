package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// TestExitCodes: 0 for success, 66 for reported races, 1 for a failure
// at run time, 2 for a command line that does not parse or names nothing
// runnable.
func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"list"}, exitOK},
		{[]string{"run", "scor/1dconv"}, exitOK},
		{[]string{"run", "scor/1dconv", "-detector", "off"}, exitOK},
		{[]string{"run", "-inject", "all-block-atomics", "scor/1dconv"}, exitRaces},
		{[]string{"run", "scor/1dconv", "-inject", "all-block-atomics"}, exitRaces},
		{[]string{"run", "micro/race_interblock_blkatom"}, exitRaces},
		{[]string{"run", "micro/norace_interblock_atom"}, exitOK},
		{[]string{"run", "scor/1dconv", "-inject", "nosuch"}, exitUsage},
		{[]string{"run", "nosuch/kernel"}, exitUsage},
		{[]string{"run"}, exitUsage},
		{[]string{"run", "scor/1dconv", "extra"}, exitUsage},
		{[]string{"run", "scor/1dconv", "-size", "huge"}, exitUsage},
		{[]string{"run", "scor/1dconv", "-detector", "maybe"}, exitUsage},
		{[]string{"run", "scor/1dconv", "-bogus"}, exitUsage},
		{[]string{"run", "scor/1dconv", "-executor", "goroutines"}, exitOK},
		{[]string{"run", "scor/1dconv", "-executor", "threads"}, exitUsage},
		{[]string{"suite", "-kernels", "scor/1dconv", "-executor", "goroutines", "-attempts", "1"}, exitOK},
		{[]string{"suite", "-kernels", "micro/norace_inter*"}, exitOK},
		{[]string{"suite", "-kernels", "nosuch*"}, exitUsage},
		{[]string{"suite", "-kernels", "["}, exitUsage},
		{[]string{"suite", "extra"}, exitUsage},
		{[]string{"suite", "-kernels", "scor/1dconv", "-attempts", "0"}, exitUsage},
		{[]string{"list", "extra"}, exitUsage},
		{[]string{"bench", "-kernels", "micro/norace_interblock_atom", "-configs", "off", "-runs", "1", "-warmup", "0", "-prime", "0"}, exitOK},
		{[]string{"frobnicate"}, exitUsage},
		{nil, exitUsage},
	}
	for _, tt := range tests {
		code, out, errs := runCmd(tt.args...)
		assert.Equal(t, tt.want, code, "warpguard %q\nstdout:\n%s\nstderr:\n%s", tt.args, out, errs)
	}
}

// TestHelp: -h on the command and on every subcommand prints a usage
// line and a paragraph on stdout and exits 0; a usage error says where
// the help is, on stderr.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"list", "-h"}, {"run", "-h"}, {"suite", "-help"}, {"bench", "-h"}, {"help", "suite"}} {
		code, out, errs := runCmd(args...)
		require.Equal(t, exitOK, code, "%q", args)
		require.True(t, strings.HasPrefix(out, "usage: warpguard "), "%q:\n%s", args, out)
		require.Greater(t, strings.Count(out, "\n"), 4, "%q: a paragraph, not only the flags:\n%s", args, out)
		require.Empty(t, errs, "%q", args)
	}
	code, _, errs := runCmd("suite", "-bogus")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errs, "flag provided but not defined: -bogus")
	require.Contains(t, errs, "run 'warpguard suite -h' for help")
}

// TestRunPrintsReport checks that run prints the output check and the
// report, with both sites.
func TestRunPrintsReport(t *testing.T) {
	_, out, _ := runCmd("run", "scor/reduction", "-inject", "ticket-block-fence")
	for _, want := range []string{"output: ok", "WARNING: SCOPED RACE (missing-device-fence)", "scor_reduction.go:", "1 race reported"} {
		assert.Contains(t, out, want)
	}
}

func TestRunJSON(t *testing.T) {
	code, out, _ := runCmd("run", "scor/1dconv", "-inject", "all-block-atomics", "-json")
	var v struct {
		Kernel     string        `json:"kernel"`
		Inject     string        `json:"inject"`
		OutputOK   bool          `json:"output_ok"`
		FoundRaces []string      `json:"found_races"`
		Reports    []race.Report `json:"reports"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), "exit %d:\n%s", code, out)
	require.Equal(t, "scor/1dconv", v.Kernel)
	require.Equal(t, "all-block-atomics", v.Inject)
	require.True(t, v.OutputOK)
	require.NotEmpty(t, v.Reports)
	require.Equal(t, "scoped-atomic", v.FoundRaces[0])
	site := v.Reports[0].Current.Site
	require.True(t, strings.HasSuffix(site.Function(), "(*conv1D).contribute"), site.Function())
	require.Equal(t, "kernels/scor_conv1d.go", site.File(), "the file relative to the module root")
	require.NotZero(t, site.Line())
}

// TestSuiteJSON checks that suite -json prints one object per
// configuration with every documented field, progress and the tally on
// stderr.
func TestSuiteJSON(t *testing.T) {
	code, out, errs := runCmd("suite", "-json", "-kernels", "scor/1dconv")
	require.Equal(t, exitOK, code, errs)
	fields := []string{"kernel", "inject", "expect_races", "found_races", "false_positives", "missed", "output_ok", "ok", "off_ns", "on_ns", "race_reports"}
	var lines int
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		lines++
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "line %d: %s", lines, sc.Text())
		for _, f := range fields {
			assert.Contains(t, m, f, "line %d", lines)
		}
		assert.Equal(t, true, m["ok"], sc.Text())
		assert.Greater(t, m["on_ns"].(float64), 0.0, sc.Text())
	}
	require.Equal(t, 2, lines, "clean and one injection:\n%s", out)
	require.Contains(t, errs, "[2/2] scor/1dconv all-block-atomics: ok")
	require.Contains(t, errs, "2/2 configurations ok")
}

// TestSuiteTable: rows, under a header, keep to 120 columns, counted in
// runes; the tally is the last line of stdout; -v adds the kinds; a
// pattern list selects kernels.
func TestSuiteTable(t *testing.T) {
	code, out, _ := runCmd("suite", "-kernels", "scor/rule-110,micro/race_interwarp_dev-blklock-no-stf_waw")
	require.Equal(t, exitOK, code, out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.True(t, strings.HasPrefix(lines[0], "CONFIGURATION "), lines[0])
	require.Len(t, lines, 1+4+1, out)
	require.Equal(t, 3, strings.Count(out, "scor/rule-110"))
	for _, l := range lines {
		require.LessOrEqual(t, len([]rune(l)), tableWidth, l)
	}
	require.Contains(t, lines[len(lines)-1], "4/4 configurations ok")
	require.NotContains(t, out, "EXPECT")

	_, out, _ = runCmd("suite", "-v", "-kernels", "scor/rule-110,micro/race_interwarp_dev-blklock-no-stf_waw")
	require.Contains(t, out, "\n    expect ")
	require.Contains(t, out, "reported scoped-atomic")
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		require.LessOrEqual(t, len([]rune(l)), tableWidth, l)
	}
}

// TestSuiteTableWidth: with every kernel of the catalog, the rows still
// fit 120 columns, with -v's kinds and a failing row's explanation too.
func TestSuiteTableWidth(t *testing.T) {
	var b bytes.Buffer
	cat, _, err := suiteCatalog(newCommand("suite", "", "", &b), "", "default")
	require.NoError(t, err)
	cfgs := benchConfigs(cat)
	tab := newSuiteTable(&b, cfgs, true)
	for i := range cfgs {
		r := fakeResult(cfgs[i], i%7 == 0)
		require.NoError(t, tab.write(&r))
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		require.LessOrEqual(t, len([]rune(l)), tableWidth, l)
	}
}

// TestListWidth: list names every kernel and injection and wraps its
// text at 120 columns.
func TestListWidth(t *testing.T) {
	_, out, _ := runCmd("list")
	for _, want := range []string{"micro/race_interblock_blkfence_raw", "scor/uts", "-inject count-no-syncwarp", "cooperative"} {
		assert.Contains(t, out, want)
	}
	// The default family's verdict first, the IGUARD family's where it
	// differs: ScoR's volatile data is clean under the first.
	assert.Contains(t, out, "micro/race_interblock_blkfence_raw  (iguard: racy: missing-device-fence, cooperative)\n")
	assert.Contains(t, out, "micro/norace_interwarp-block_fence-atom_hrd-indirect  (racy: scoped-atomic, iguard: clean, cooperative)\n")
	assert.Contains(t, out, "  -inject tile-no-acquire-fence  -  (iguard: improper-locking|missing-block-fence)\n")
	for _, l := range strings.Split(out, "\n") {
		require.LessOrEqual(t, len([]rune(l)), listWidth, l)
	}
}

// benchConfigs is the suite's configurations of cat.
func benchConfigs(cat kernels.Catalog) []bench.Case {
	return bench.Configs(cat, kernels.Default, 1)
}

// fakeResult is a result of c with wide figures, failing with false
// positives if fail.
func fakeResult(c bench.Case, fail bool) bench.Result {
	r := bench.Result{Kernel: c.Kernel.Name, Inject: c.Inject, Expect: c.Kernel.Expected(c.Inject),
		Off: bench.Outcome{Elapsed: 123456789 * time.Microsecond}, On: bench.Outcome{Elapsed: 987654321 * time.Microsecond}}
	if len(r.Expect) > 0 {
		r.Matched = 1
	}
	if fail {
		r.FalsePositives = 12
	}
	return r
}

// TestHelpWidth: every subcommand's -h, flags included, keeps to 120
// columns, and shows the defaults flag.PrintDefaults would.
func TestHelpWidth(t *testing.T) {
	for _, cmd := range []string{"run", "suite", "bench", "fuzz", "list"} {
		code, out, _ := runCmd(cmd, "-h")
		require.Equal(t, exitOK, code, cmd)
		for _, l := range strings.Split(out, "\n") {
			require.LessOrEqual(t, len([]rune(l)), tableWidth, "%s -h: %s", cmd, l)
		}
	}
	_, out, _ := runCmd("bench", "-h")
	require.Contains(t, out, "  -runs int\n")
	require.Contains(t, out, "(default 5)")
	require.Contains(t, out, `(default "default")`)
	require.NotContains(t, out, "(default false)")
}
