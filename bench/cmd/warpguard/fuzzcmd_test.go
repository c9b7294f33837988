package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/kernels/gen/difftest"
)

// TestFuzzExitCodes: a run exits 0 whatever its counts; bad flags and
// arguments are usage errors.
func TestFuzzExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"fuzz", "-n", "5"}, exitOK},
		{[]string{"fuzz", "-n", "0"}, exitUsage},
		{[]string{"fuzz", "-n", "5", "-executor", "goroutines", "-configs", "precise"}, exitOK},
		{[]string{"fuzz", "-executor", "threads"}, exitUsage},
		{[]string{"fuzz", "-configs", "opt,nosuch"}, exitUsage},
		{[]string{"fuzz", "extra"}, exitUsage},
		{[]string{"fuzz", "-bogus"}, exitUsage},
	} {
		code, out, errs := runCmd(tt.args...)
		assert.Equal(t, tt.want, code, "warpguard %q\nstdout:\n%s\nstderr:\n%s", tt.args, out, errs)
	}
	_, _, errs := runCmd("fuzz", "-executor", "fiber")
	assert.Contains(t, errs, `-executor "fiber": want deterministic, fibers or goroutines`, "worded as the flag's error, as run's and suite's are")
}

// TestFuzzHelp: -h prints the usage and the help paragraph.
func TestFuzzHelp(t *testing.T) {
	code, out, _ := runCmd("fuzz", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "usage: warpguard fuzz")
	assert.Contains(t, out, "false negatives against the oracle")
	assert.Contains(t, out, "-configs")
}

// TestFuzzTable: a row per configuration; detection off misses every
// racing granule and reports none.
func TestFuzzTable(t *testing.T) {
	code, out, errs := runCmd("fuzz", "-n", "40", "-configs", "opt,off")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "fuzz: 40/40 kernels")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Contains(t, lines[0], "FN GRANULES")
	off := strings.Fields(lines[2])
	require.Len(t, off, 9, lines[2])
	assert.Equal(t, "off", off[0])
	assert.Equal(t, "deterministic", off[1])
	assert.Equal(t, off[4], off[6], "off misses every racing granule")
	assert.Equal(t, "0", off[5], "off reports nothing")
}

// TestFuzzJSON: -json prints one tally per configuration, in order.
func TestFuzzJSON(t *testing.T) {
	code, out, errs := runCmd("fuzz", "-n", "20", "-configs", "opt,off", "-json")
	require.Equal(t, exitOK, code, errs)
	var got []difftest.Tally
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var tl difftest.Tally
		require.NoError(t, json.Unmarshal(sc.Bytes(), &tl), sc.Text())
		got = append(got, tl)
	}
	require.Len(t, got, 2)
	assert.Equal(t, "opt", got[0].Config)
	assert.Equal(t, 20, got[1].Kernels)
	assert.Equal(t, got[1].Granules, got[1].FalseNegatives)
	assert.Positive(t, got[1].Racy)
}

// TestFuzzVerbose prints the kernels a configuration gets wrong, with
// their seeds.
func TestFuzzVerbose(t *testing.T) {
	code, out, _ := runCmd("fuzz", "-n", "20", "-configs", "off", "-v")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "config off, kernel seed")
	assert.Contains(t, out, "false negatives:")
}
