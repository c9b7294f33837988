// Package difftest judges a detector configuration against the oracle of
// package race/oracle on kernels from package kernels/gen.
//
// [Run] launches one generated kernel once, deterministically under a
// seeded random schedule, with a fresh detector of the named configuration
// (race.Config) and an oracle recorder both watching that one execution,
// and compares the granules the detector reported with those the oracle
// finds racing: a granule only the detector reports is a false positive,
// one only the oracle finds a false negative. [Tally] sums outcomes over
// many kernels.
//
// The detector is driven only through its exported API; difftest shares
// no checking code with it.
package difftest
