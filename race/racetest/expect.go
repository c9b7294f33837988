package racetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race"
)

// Expect asserts that det reported a race of kind k on the memory of mem,
// a global buffer from gpu.Alloc or a shared array (a buffer from
// gpu.Shared, or [Shared] naming it), and takes those reports from det
// (see race.Detector.Take), so that a later [Check], or the end of a test
// on a [Device], does not fail on them. It fails tb, listing what det did
// report, if there is no such race, and returns the reports it took.
//
// A shared array is matched by its name in every block: each block has its
// own gpu.Memory for it, so a report of any block's copy matches.
//
// det is a [Device]'s detector ([DetectorOf]) or one a test attaches to
// its launches itself ([New]); [Launch] checks its detector before it
// returns, so its races cannot be expected.
func Expect(tb testing.TB, det *race.Detector, k race.Kind, mem interface{ Memory() *gpu.Memory }) []race.Report {
	tb.Helper()
	present(tb, "Expect", det)
	if mem == nil {
		tb.Fatalf("racetest: Expect: nil memory")
	}
	m := mem.Memory()
	taken := det.Take(func(r race.Report) bool { return r.Kind == k && sameMemory(r.Mem, m) })
	if len(taken) == 0 {
		tb.Errorf("racetest: no %v race on %v; reported: %s", k, describe(m), summary(det.Reports()))
	}
	return taken
}

// sameMemory reports whether a report's memory r is m: the same global
// buffer, or the shared array of m's name in any block.
func sameMemory(r, m *gpu.Memory) bool {
	if r == nil || m == nil {
		return false
	}
	if m.Space == gpu.SharedSpace {
		return r.Space == gpu.SharedSpace && r.Name == m.Name
	}
	return r == m
}

// describe names m as Expect's message does.
func describe(m *gpu.Memory) string {
	switch {
	case m == nil:
		return "a nil memory"
	case m.Space == gpu.SharedSpace:
		return fmt.Sprintf("shared %q", m.Name)
	}
	return m.String()
}

// summary lists rs by kind and element, or says there are none.
func summary(rs []race.Report) string {
	if len(rs) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v on %s", r.Kind, r.Element())
	}
	return b.String()
}

// A SharedArray names a block's shared array for [Expect], where the test
// holds no buffer of it: every block declares its own inside the kernel.
type SharedArray string

// Shared returns the shared array called name (the name given to
// gpu.Shared) for [Expect].
func Shared(name string) SharedArray { return SharedArray(name) }

// Memory returns a description of the array that Expect matches by name:
// it is not memory of any block.
func (s SharedArray) Memory() *gpu.Memory {
	return &gpu.Memory{Name: string(s), Space: gpu.SharedSpace, Block: -1}
}
