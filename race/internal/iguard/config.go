package iguard

// Config configures an [Engine]. The Detector builds it from its Options,
// with defaults applied: the fields mean what the Options fields of the
// same names mean.
type Config struct {
	// Granularity is the bytes of memory one metadata entry covers, a
	// power of two.
	Granularity int
	// History records every access's call path, so that a report names
	// the previous side's site and stack.
	History bool
	// Lock is how a check locks the entry it uses; NoBackoff makes
	// LockSpin spin tightly instead of backing off.
	Lock      Locking
	NoBackoff bool
	// NoCoalesce checks every lane's access, skipping none as a repeat
	// of its warp's last check.
	NoCoalesce bool
	// FullEntries gives every granule its full entry at its first access.
	FullEntries bool
	// Central ships every event to one checking goroutine per launch.
	Central bool
}
