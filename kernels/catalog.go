// Package kernels is a catalog of GPU-style algorithms written for the gpu
// runtime: the ScoR suite's microbenchmarks and applications, iGUARD's extra
// workloads, and library algorithms a Go programmer reaches for (reduce,
// scan, histogram, sort, ...). Each entry generates its own input, checks
// its output against a sequential Go reference, and lists the races that
// can be injected into it, each behind its own switch, with the kinds of
// race the detector must report. [Expose] searches deterministic schedules
// for the interleaving that shows an injected race, so that finding it
// does not depend on a machine's load; the package's tests and package
// bench both use it.
//
// Every clean kernel is race-free under independent thread scheduling: it
// has the __syncwarp calls ScoR's CUDA code leaves out.
package kernels

import (
	"context"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
)

// A Size selects an input size.
type Size uint8

// The input sizes.
const (
	Default Size = iota // small enough for CI: the whole suite runs in seconds
	Paper               // the ScoR inputs' sizes
)

// String returns "default" or "paper".
func (s Size) String() string {
	if s == Paper {
		return "paper"
	}
	return "default"
}

// ParseSize returns the Size named "default" or "paper".
func ParseSize(s string) (Size, error) {
	switch s {
	case "default", "":
		return Default, nil
	case "paper":
		return Paper, nil
	}
	return 0, fmt.Errorf("kernels: unknown size %q (want default or paper)", s)
}

// An Injection is one race that can be switched into a kernel.
type Injection struct {
	Name   string      // switch name, unique within its kernel
	Doc    string      // what the injection changes
	Expect []kind.Kind // kinds of race the detector must report; any one of them per reported race is right
	// Where is the name of the Go function (as runtime.Frame.Function ends)
	// that holds the injected code; a report is at the injected code when
	// one of its two sites is in that function.
	Where string
	// Corrupts reports that the race can change the kernel's output on this
	// emulator (the Fibers executor runs a warp's lanes one after another,
	// the worst case for warp-synchronous code), so a configuration with
	// this injection is not required to pass its output check.
	Corrupts bool
	// Precise is the precise mode's verdict where it differs from
	// Expect's; nil where the two modes agree.
	Precise *Verdict
}

// Params selects one configuration of a kernel.
type Params struct {
	Size   Size
	Seed   int64  // input generator seed
	Inject string // an Injection's Name, or "" for the clean kernel
}

// A LaunchFunc launches one kernel on the device. A Run calls it for each of
// its launches, so the caller decides the executor and observer.
type LaunchFunc func(ctx context.Context, cfg gpu.LaunchConfig, k gpu.Kernel) error

// A Run is a prepared configuration of a kernel, its input on the device.
type Run struct {
	// Launch performs the kernel's launches, in order, through launch.
	Launch func(ctx context.Context, launch LaunchFunc) error
	// Check compares the output with the sequential reference, returning an
	// error that says what differs.
	Check func() error
}

// A Entry is one catalog entry.
type Entry struct {
	Name string // "micro/race_interblock_blkfence_raw", "scor/reduction", "lib/scan", ...
	Doc  string // what it computes and how it synchronizes
	// Cooperative reports that the kernel needs every block resident at
	// once: a cooperative launch, or blocks that wait on each other.
	Cooperative bool
	// Racy reports that even the clean configuration has a race (a ScoR
	// "race_" microbenchmark); its expected kinds are in Expect.
	Racy   bool
	Expect []kind.Kind
	// Precise is the precise mode's verdict on the clean kernel where it
	// differs from Racy and Expect's; nil where the two modes agree.
	Precise    *Verdict
	Injections []Injection
	// Setup allocates and fills the input on d.
	Setup func(d *gpu.Device, p Params) (*Run, error)
}

// Injection returns the injection called name.
func (k *Entry) Injection(name string) (Injection, bool) {
	i := slices.IndexFunc(k.Injections, func(in Injection) bool { return in.Name == name })
	if i < 0 {
		return Injection{}, false
	}
	return k.Injections[i], true
}

// Prepare checks that p names one of k's injections (or none) and sets the
// configuration up on d.
func (k *Entry) Prepare(d *gpu.Device, p Params) (*Run, error) {
	if p.Inject != "" {
		if _, ok := k.Injection(p.Inject); !ok {
			return nil, fmt.Errorf("kernels: %s has no injection %q", k.Name, p.Inject)
		}
	}
	return k.Setup(d, p)
}

// Expected returns the race kinds the detector must report for a
// configuration: the injection's, or the kernel's own for a racy kernel,
// or none.
func (k *Entry) Expected(inject string) []kind.Kind {
	if inject == "" {
		return k.Expect
	}
	in, _ := k.Injection(inject)
	return in.Expect
}

// ExpectedIn returns the race kinds the detector must report for a
// configuration in the precise mode when precise is set, else in the
// default mode (Expected).
func (k *Entry) ExpectedIn(inject string, precise bool) []kind.Kind {
	v := k.Precise
	if inject != "" {
		in, _ := k.Injection(inject)
		v = in.Precise
	}
	if !precise || v == nil {
		return k.Expected(inject)
	}
	return v.Expect
}

// A Catalog is a list of kernels in a stable order.
type Catalog []*Entry

// Lookup returns the kernel called name.
func (c Catalog) Lookup(name string) (*Entry, bool) {
	i := slices.IndexFunc(c, func(k *Entry) bool { return k.Name == name })
	if i < 0 {
		return nil, false
	}
	return c[i], true
}

// Match returns, in catalog order, the kernels whose names match any of
// the comma-separated path.Match patterns in globs, such as
// "micro/*,lib/scan"; the empty string matches every kernel.
func (c Catalog) Match(globs string) (Catalog, error) {
	if globs == "" {
		return c, nil
	}
	var out Catalog
	for _, k := range c {
		ok, err := matchAny(strings.Split(globs, ","), k.Name)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, k)
		}
	}
	return out, nil
}

// matchAny reports whether name matches one of the path.Match patterns.
func matchAny(globs []string, name string) (bool, error) {
	for _, g := range globs {
		ok, err := path.Match(strings.TrimSpace(g), name)
		if err != nil {
			return false, fmt.Errorf("kernels: bad pattern %q: %w", g, err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// where returns the name of function f as an Injection's Where holds it:
// package kernels' name and the function's, such as
// "kernels.(*matMul).addPartial". Naming the function by value, not by a
// string, lets the compiler check that it exists.
func where(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndex(name, "/")+1:]
}
