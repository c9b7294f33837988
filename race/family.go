package race

import (
	"fmt"
	"strings"
)

// A Family is a detector's way of deciding races: which engine checks.
type Family uint8

// The families.
const (
	// Exact decides by scoped happens-before, PTX's notion of a data race
	// (see the package doc, "Exact mode"): every report is a race of the
	// observed execution, and every race it has is reported, on every
	// executor. It is the default: the zero Options.
	Exact Family = iota
	// IGUARD decides by iGUARD's published rules (SOSP'21, with ScoRD's
	// race conditions): per-word last writer and accessor, fence and
	// barrier counters, inferred locks. It is kept for comparison with the
	// published detector and for its contention optimizations, each
	// switchable and counted (Options.Lock, NoBackoff, NoCoalesce,
	// FullEntries, Central); it passes some races (a reader that never
	// acquires) and reports some correct code (a leader's fence after a
	// barrier): the package doc's table lists where it and Exact differ.
	IGUARD
)

var familyNames = [...]string{Exact: "exact", IGUARD: "iguard"}

// String names the family as ParseFamily reads it.
func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", f)
}

// ParseFamily returns the family s names, in any case: "exact" or
// "iguard" ("IGUARD", as the docs write the family, too).
func ParseFamily(s string) (Family, error) {
	for i, n := range familyNames {
		if strings.EqualFold(n, s) {
			return Family(i), nil
		}
	}
	return 0, fmt.Errorf("unknown family %q (want exact or iguard)", s)
}
