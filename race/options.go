package race

import (
	"math/bits"

	"github.com/warpguard/warpguard/race/internal/iguard"
)

// Options configure a [Detector]. The zero value is usable and is the
// default: the Exact family ("exact" in [Configs]), 4-byte granules, no
// history, at most 100 reports. Lock, NoBackoff, NoCoalesce and Central
// configure the IGUARD family only.
type Options struct {
	// Family selects how races are decided: Exact (the zero value) or
	// IGUARD, iGUARD's published rules, for comparison.
	Family Family
	// Granularity is the most bytes of memory one metadata entry covers:
	// 4 by default, as iGUARD; a power of two (others are rounded up). An
	// access spanning several granules is checked once per granule; 8
	// halves the metadata of 8-byte data. The Exact family tracks every
	// typed buffer at its element size, 8-byte elements included, since
	// each access is one whole element; Granularity sizes its entries of
	// DynamicShared memory only. A Granularity larger than a
	// buffer's element size does not make neighbours share an entry: a
	// buffer of 1- or 2-byte elements (or 4-byte ones under 8) is tracked
	// at its element size, so unordered writes to neighbouring bytes of
	// one word never race and writes to one byte do. Only DynamicShared
	// memory, whose views of several types alias, is tracked at
	// Granularity whatever its views' types: there neighbours narrower
	// than Granularity share an entry and may race falsely, and 1 tells
	// byte-sized neighbours apart.
	Granularity int
	// History records the file:line of every access, so a report names
	// the previous side's site as well as the current one, and gives each
	// side a short call stack (Side.Stack). It costs a call-path walk and
	// a site lookup per access (file:line and the stack are resolved once
	// per call path); package racetest turns it on.
	History bool
	// HaltOnFirst stops the launch at the first race: the detector ends
	// the racing thread with a *[Halt] (gpu.Thread.Halt), which becomes
	// the launch's error, naming the racing access's kernel line, and
	// which stops every other thread, as Go's GORACE=halt_on_error=1
	// exits the program. With Central the halt comes at the next access
	// of any thread after the checker found it.
	HaltOnFirst bool
	// MaxReports bounds the reports kept; further distinct races are
	// counted by [Detector.Dropped]. 0 means 100.
	MaxReports int

	// Lock selects how a check locks the metadata entry it uses.
	Lock Locking
	// NoBackoff makes a check that finds its entry locked spin on it
	// tightly, as iGUARD does with CONT_OPT=0, instead of backing off
	// exponentially (see backoff.go in race/internal/iguard). Only LockSpin backs off.
	NoBackoff bool
	// NoCoalesce checks every load and atomic of a warp's lanes to one
	// word, instead of letting a lane skip a check that would repeat its
	// warp's last one (see coalesce.go in race/internal/iguard).
	NoCoalesce bool
	// FullEntries gives every granule its full metadata entry (64
	// bytes) at its first access, as iGUARD does, instead of one word
	// holding that access, packed, until another access needs the entry
	// (see first.go in race/internal/iguard). It exists for
	// benchmarks; verdicts are the same. Detectors with Central always
	// keep full entries; with History the first record also names the
	// access's call path. In the Exact family it gives every touched
	// granule its full state at once, instead of a one-access cell
	// (race/internal/hb), with the same verdicts.
	FullEntries bool
	// FlatClocks makes the Exact family's covers checks walk the vector
	// clocks (the runs of threads they do not share), instead of
	// answering whether a clock covers an earlier one of its lineage
	// (each clock of a lineage covers those before it: the releases of a
	// lock handed from thread to thread form one) without a walk
	// (race/internal/hb, lineage.go). It exists for benchmarks; verdicts are the same, and
	// Stats.Joins counts the difference. The IGUARD family ignores it.
	FlatClocks bool
	// Central ships every event to one checking goroutine per launch, in
	// the style of Barracuda, instead of checking inline on the accessing
	// goroutine. It exists as a baseline for benchmarks; it is slower.
	Central bool
	// Precise selects the Exact family whatever Family says.
	//
	// Deprecated: Exact is the default Family; set Family to IGUARD for
	// iGUARD's rules.
	Precise bool
	// Off asks for no detection at all: it names the "off" configuration
	// of [Config], and a caller seeing it should attach no observer.
	// A Detector made with Off still checks.
	Off bool
}

// Exact reports whether o selects the Exact family: Family is Exact, or
// the deprecated Precise is set.
func (o Options) Exact() bool { return o.Family == Exact || o.Precise }

func (o Options) withDefaults() Options {
	if o.Granularity <= 0 {
		o.Granularity = 4
	}
	o.Granularity = 1 << bits.Len(uint(o.Granularity-1))
	if o.MaxReports <= 0 {
		o.MaxReports = 100
	}
	return o
}

// engine returns the default mode's configuration: o's, with defaults
// applied.
func (o Options) engine() iguard.Config {
	return iguard.Config{Granularity: o.Granularity, History: o.History, Lock: o.Lock.engine(), NoBackoff: o.NoBackoff,
		NoCoalesce: o.NoCoalesce, FullEntries: o.FullEntries, Central: o.Central}
}
