package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/profile"
	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// benchDoc is bench's help paragraph.
const benchDoc = "Bench measures the clean configuration of each kernel, and the contention " +
	"workloads, under each detector configuration (off; central, plain, coalesce, backoff and opt of the iguard family; exact, the default; " +
	"a name may end in :mutex, :striped, :full, :flat (exact only) or :history), alternating the configurations run by run after " +
	"running the first kernel untimed for -prime, and prints a table of medians with their spread, " +
	"ratios against detection off, the detector's counters per launch and the bytes the process allocated per launch (alloc, " +
	"under off too); progress, with the time " +
	"left, goes to stderr. -json prints JSON lines with nanoseconds, -svg writes a bar chart, and " +
	"-cpus repeats the whole measurement at each GOMAXPROCS listed. The large-grid group " +
	"(large/..., millions of threads) runs only when -kernels names it: -kernels 'large/*' -configs off,opt. " +
	"A measurement whose launch fails or whose output is wrong reads \"error\" in its row, a line after the table " +
	"says why, and bench exits 1."

// benchCmd is `warpguard bench`: the clean configuration of each kernel
// under each detector configuration, with warm-up and repetitions; a
// table of medians, ratios against detection off and the detector's
// counters on stdout, progress on stderr.
func benchCmd(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("bench", "[flags]", benchDoc, stderr)
	glob := fs.String("kernels", "", "measure "+kernelsFlagDoc)
	configs := fs.String("configs", strings.Join(race.Configs(), ","), "comma-separated detector configurations; a name may end in :mutex, :striped, :full, :flat (exact only) or :history (see race.Config)")
	runs := fs.Int("runs", 5, "timed runs of each kernel under each configuration")
	warmup := fs.Int("warmup", 1, "untimed runs first")
	prime := fs.Duration("prime", time.Second, "run the first kernel untimed this long before measuring anything (a fresh process runs slower at first); 0 for none")
	minTime := fs.Duration("mintime", time.Millisecond, "repeat the launch within a run until the launches add up to this; 0 for one launch per run")
	size := fs.String("size", "default", "input size: default or paper")
	seed := fs.Int64("seed", 1, "input generator seed")
	asJSON := fs.Bool("json", false, "print one JSON object per kernel and configuration")
	svg := fs.String("svg", "", "write a bar chart of the overhead to this file")
	prof := fs.String("profile", "", "profile the run: cpu, mem, mutex, block or trace")
	profDir := fs.String("profiledir", ".", "directory for the -profile output")
	cpus := fs.String("cpus", "", "comma-separated GOMAXPROCS values to run the whole matrix at, one after another (default: as the process has)")
	ex := addExecutor(fs.FlagSet)
	if code, ok := fs.parse(args, stdout); !ok {
		return code
	}
	m, err := benchMatrix(fs, *glob, *configs, *size)
	var counts []int
	if err == nil {
		counts, err = parseCPUs(*cpus)
	}
	if err == nil {
		err = outputsOf(*prof, *svg)
	}
	if err == nil {
		err = errors.Join(atLeast("runs", *runs, 1), atLeast("warmup", *warmup, 0),
			atLeast("prime", *prime, 0), atLeast("mintime", *minTime, 0))
	}
	if err != nil {
		return fs.usageError(err)
	}
	m.Runs, m.Warmup, m.Seed, m.Executor, m.Progress = *runs, *warmup, *seed, ex.Executor, stderr
	if *warmup == 0 {
		m.Warmup = -1
	}
	m.MinTime, m.Prime = *minTime, *prime
	if *minTime == 0 {
		m.MinTime = -1
	}
	if *prof != "" {
		stop, err := startProfile(*prof, *profDir)
		if err != nil {
			fmt.Fprintln(stderr, "warpguard:", err)
			return exitError
		}
		defer stop()
	}
	code := exitOK
	for _, n := range counts {
		if err := benchAt(m, n, len(counts) > 1, stdout, *asJSON, *svg); err != nil {
			fmt.Fprintln(stderr, "warpguard:", err)
			code = exitError
		}
	}
	return code
}

// benchMatrix checks the flags and returns the matrix they select.
func benchMatrix(fs *command, glob, configs, size string) (bench.Matrix, error) {
	if err := fs.noArgs(); err != nil {
		return bench.Matrix{}, err
	}
	sz, err := kernels.ParseSize(size)
	if err != nil {
		return bench.Matrix{}, err
	}
	cat, err := selectKernels(benchCatalog(), glob)
	if err != nil {
		return bench.Matrix{}, err
	}
	var names []string
	for _, n := range strings.Split(configs, ",") {
		if _, err := race.Config(strings.TrimSpace(n)); err != nil {
			return bench.Matrix{}, err
		}
		names = append(names, strings.TrimSpace(n))
	}
	return bench.Matrix{Kernels: cat, Configs: names, Size: sz}, nil
}

// benchCatalog is every kernel and the contention workloads, once each
// (kernels.All may already hold them).
func benchCatalog() kernels.Catalog {
	c := kernels.All()
	for _, k := range kernels.Contention() {
		if !slices.ContainsFunc(c, func(o *kernels.Entry) bool { return o.Name == k.Name }) {
			c = append(c, k)
		}
	}
	return c
}

// parseCPUs parses -cpus; "" is one run at the process's GOMAXPROCS (0).
func parseCPUs(s string) ([]int, error) {
	if s == "" {
		return []int{0}, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-cpus %q: want positive counts such as 1,2,4", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchAt runs m at n CPUs (0: as is) and writes its results; with
// several counts, each table is headed by its count and each chart goes
// to svg with "-cpusN" before the extension. A measurement that failed
// (a launch error or a wrong output) makes it return an error, after
// the results.
func benchAt(m bench.Matrix, n int, several bool, stdout io.Writer, asJSON bool, svg string) error {
	m.CPUs = n
	cells, err := m.Run(context.Background())
	if err != nil {
		return err
	}
	if several && !asJSON {
		fmt.Fprintf(stdout, "GOMAXPROCS=%d\n", n)
	}
	if several && svg != "" {
		ext := filepath.Ext(svg)
		svg = fmt.Sprintf("%s-cpus%d%s", strings.TrimSuffix(svg, ext), n, ext)
	}
	if err := writeBench(stdout, cells, asJSON, svg); err != nil {
		return err
	}
	if n := bench.Failed(cells); n > 0 {
		return fmt.Errorf("%d of %d measurements failed to launch or computed a wrong output: their times are not the kernel's", n, len(cells))
	}
	return nil
}

// outputsOf checks -profile's mode and that -svg's directory exists, if
// they are given.
func outputsOf(prof, svg string) error {
	if prof != "" {
		if _, err := profileMode(prof); err != nil {
			return err
		}
	}
	if svg != "" {
		return dirOf("svg", svg)
	}
	return nil
}

// dirOf returns an error naming flag if the directory file would be
// written in is not one, so that a bad path fails before the measuring,
// not after.
func dirOf(flag, file string) error {
	dir := filepath.Dir(file)
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	if err != nil {
		return fmt.Errorf("-%s %s: %w", flag, file, err)
	}
	return nil
}

// writeBench writes the table or the JSON lines, and the SVG if asked.
func writeBench(stdout io.Writer, cells []bench.Cell, asJSON bool, svg string) error {
	var err error
	if asJSON {
		err = bench.WriteJSON(stdout, cells)
	} else {
		err = bench.WriteTable(stdout, cells)
	}
	if err != nil || svg == "" {
		return err
	}
	f, err := os.Create(svg)
	if err != nil {
		return err
	}
	if err := bench.WriteSVG(f, cells); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// startProfile starts the profile of kind in dir through pkg/profile.
// pkg/profile allows one profile per process, so this runs once per
// warpguard invocation.
func startProfile(kind, dir string) (stop func(), err error) {
	mode, err := profileMode(kind)
	if err != nil {
		return nil, err
	}
	p := profile.Start(mode, profile.ProfilePath(dir), profile.NoShutdownHook, profile.Quiet)
	return p.Stop, nil
}

// profileMode returns pkg/profile's mode for -profile kind.
func profileMode(kind string) (func(*profile.Profile), error) {
	modes := map[string]func(*profile.Profile){
		"cpu": profile.CPUProfile, "mem": profile.MemProfile, "mutex": profile.MutexProfile,
		"block": profile.BlockProfile, "trace": profile.TraceProfile,
	}
	mode, ok := modes[kind]
	if !ok {
		return nil, fmt.Errorf("-profile %q: want cpu, mem, mutex, block or trace", kind)
	}
	return mode, nil
}
