package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/kernels"
)

func benchRun(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	// A second of priming per call would dominate these tests: they prime
	// only when they say so.
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-prime") }) {
		args = append([]string{"-prime", "0"}, args...)
	}
	code = benchCmd(args, &o, &e)
	return code, o.String(), e.String()
}

// TestBenchTable checks the table: a row per kernel and configuration,
// the summaries, and progress on stderr, priming included.
func TestBenchTable(t *testing.T) {
	code, out, errOut := benchRun("-kernels", "contention/hot-bin", "-runs", "1", "-warmup", "0", "-configs", "off,plain,opt", "-prime", "20ms")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, errOut, "priming for 20ms with contention/hot-bin")
	for _, want := range []string{"contention/hot-bin", "plain", "opt", "opt: overhead vs off over 1 kernels", "opt over plain on 1 kernels contention/*"} {
		require.Contains(t, out, want)
	}
	require.Contains(t, errOut, "contention/hot-bin opt:")
}

// TestBenchJSON checks that -json prints one object per cell with the
// fields the issue names, and that the ratio of off is 1.
func TestBenchJSON(t *testing.T) {
	code, out, errOut := benchRun("-kernels", "micro/norace_interblock_atom", "-runs", "2", "-configs", "off,central,opt", "-json")
	require.Equal(t, exitOK, code, errOut)
	var n int
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); n++ {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj))
		for _, f := range []string{"kernel", "config", "median_ns", "spread", "ratio_vs_off", "checks", "coalesced", "lock_acquisitions", "contended", "backoff_waits", "backoff_ns", "reports", "metadata_bytes"} {
			require.Contains(t, obj, f)
		}
		require.Len(t, obj["runs_ns"], 2)
		if obj["config"] == "off" {
			require.InDelta(t, 1.0, obj["ratio_vs_off"], 1e-9)
		} else {
			require.Positive(t, obj["checks"])
		}
	}
	require.Equal(t, 3, n)
}

// TestBenchSVG checks that -svg writes a chart with a bar per
// configuration other than off.
func TestBenchSVG(t *testing.T) {
	file := filepath.Join(t.TempDir(), "overhead.svg")
	code, _, errOut := benchRun("-kernels", "contention/work-queue", "-runs", "1", "-configs", "off,plain,opt", "-svg", file)
	require.Equal(t, exitOK, code, errOut)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	svg := string(b)
	require.True(t, strings.HasPrefix(svg, "<svg"))
	require.Equal(t, 2, strings.Count(svg, "<title>contention/work-queue"))
	require.Contains(t, svg, "</svg>")
}

// TestBenchProfile checks that -profile writes its profile to -profiledir.
// pkg/profile allows one profile per process: this is the only test that
// asks for one.
func TestBenchProfile(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := benchRun("-kernels", "micro/norace_interblock_atom", "-runs", "1", "-configs", "off,opt", "-profile", "cpu", "-profiledir", dir)
	require.Equal(t, exitOK, code, errOut)
	_, err := os.Stat(filepath.Join(dir, "cpu.pprof"))
	require.NoError(t, err)
}

// TestBenchCPUs checks that -cpus runs the matrix once per count, with
// the count in each JSON object and a chart per count.
func TestBenchCPUs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "overhead.svg")
	code, out, errOut := benchRun("-kernels", "micro/norace_interblock_atom", "-runs", "1", "-configs", "off,opt", "-cpus", "1,2", "-json", "-svg", file)
	require.Equal(t, exitOK, code, errOut)
	var cpus []float64
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); {
		var obj map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &obj))
		cpus = append(cpus, obj["cpus"].(float64))
	}
	require.Equal(t, []float64{1, 1, 2, 2}, cpus)
	for _, n := range []string{"1", "2"} {
		_, err := os.Stat(filepath.Join(filepath.Dir(file), "overhead-cpus"+n+".svg"))
		require.NoError(t, err)
	}
	code, _, errOut = benchRun("-cpus", "0")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "-cpus")
}

// TestBenchErrors checks that bad flags are usage errors (exit 2), named
// on stderr.
func TestBenchErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-configs", "off,turbo"},
		{"-kernels", "nosuch*"},
		{"-kernels", "["},
		{"-size", "huge"},
		{"-profile", "gpu"},
		{"-bogus"},
		{"extra"},
		{"-runs", "0"},
		{"-runs", "-1"},
		{"-warmup", "-1"},
		{"-prime", "-1s"},
		{"-mintime", "-1ms"},
		{"-svg", "/nonexistent/dir/x.svg"},
	} {
		code, out, errOut := benchRun(args...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.NotEmpty(t, errOut, "%q", args)
		require.Empty(t, out, "%q: nothing measured", args)
	}
}

// TestBenchFailsOnAWrongOutput: a measured kernel whose output is wrong
// makes bench fail after its table, whose row and last line say so.
func TestBenchFailsOnAWrongOutput(t *testing.T) {
	k := &kernels.Entry{Name: "test/wrong-output", Doc: "checks against the wrong answer",
		Setup: func(d *gpu.Device, _ kernels.Params) (*kernels.Run, error) {
			launch := func(ctx context.Context, launch kernels.LaunchFunc) error {
				return launch(ctx, gpu.LaunchConfig{Name: "nothing", Grid: gpu.Dim3{X: 1}, Block: gpu.Dim3{X: 1}}, func(*gpu.Thread) {})
			}
			return &kernels.Run{Launch: launch, Check: func() error { return errors.New("y[3] = 1, want 2") }}, nil
		}}
	m := bench.Matrix{Kernels: kernels.Catalog{k}, Configs: []string{"off", "exact"}, Runs: 1, Warmup: -1, MinTime: -1}
	var out bytes.Buffer
	err := benchAt(m, 0, false, &out, false, "")
	require.EqualError(t, err, "2 of 2 measurements failed to launch or computed a wrong output: their times are not the kernel's")
	require.Contains(t, out.String(), "test/wrong-output off: error: output: y[3] = 1, want 2")
}
