package race

import "math/bits"

// Options configure a [Detector]. The zero value is usable: 4-byte
// granules, no history, at most 100 reports.
type Options struct {
	// Granularity is the bytes of memory one metadata entry covers: 4 by
	// default, as iGUARD; a power of two (others are rounded up). An access spanning several granules is checked
	// once per granule. 1 tells apart byte-sized neighbours of a
	// DynamicShared view; 8 halves the metadata of 8-byte data.
	Granularity int
	// History records the file:line of every access, so a report names
	// the previous side's site as well as the current one. It costs a
	// stack walk per access (hundreds of ns); package racetest turns it on.
	History bool
	// HaltOnFirst stops the launch at the first race: the detector panics
	// in the racing thread with a *[Halt], which the runtime turns into the
	// launch's error and which stops every other thread, as Go's
	// GORACE=halt_on_error=1 exits the program.
	HaltOnFirst bool
	// MaxReports bounds the reports kept; further distinct races are
	// counted by [Detector.Dropped]. 0 means 100.
	MaxReports int
}

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
