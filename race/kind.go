package race

import "github.com/warpguard/warpguard/race/kind"

// A Kind classifies a race by the synchronization it lacks. It is
// [kind.Kind], declared in a leaf package so that code stating
// expectations about races need not import the detector.
type Kind = kind.Kind

// The kinds of race, as [kind] declares them. The zero Kind is not a race.
const (
	ScopedAtomic       = kind.ScopedAtomic
	MissingBlockFence  = kind.MissingBlockFence
	MissingDeviceFence = kind.MissingDeviceFence
	MissingSyncwarp    = kind.MissingSyncwarp
	ImproperLocking    = kind.ImproperLocking
	ReadOnlyWritten    = kind.ReadOnlyWritten
)

// ParseKind returns the Kind named by s, a name Kind's String returns.
func ParseKind(s string) (Kind, error) { return kind.Parse(s) }
