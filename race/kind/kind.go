// Package kind names the races the detector of package race reports: what
// synchronization an access pair lacks. It is a leaf, so that code that
// only states expectations about races (the kernels' injection tables,
// reports read back from JSON) need not import the detector.
package kind

import "fmt"

// A Kind classifies a race by the synchronization it lacks, following the
// race conditions of ScoRD (ISCA'20, §IV) and iGUARD (SOSP'21, Table 2).
type Kind uint8

// The kinds of race. The zero Kind is not a race.
const (
	// ScopedAtomic: an atomic of block scope used on data that a thread of
	// another block accesses (ScoRD race (d), iGUARD R1).
	ScopedAtomic Kind = iota + 1
	// MissingBlockFence: two threads of one block communicate with no
	// barrier, fence, or adequately scoped atomic between their accesses
	// (iGUARD R3).
	MissingBlockFence
	// MissingDeviceFence: two threads of different blocks communicate with
	// no device-scope fence or synchronization between their accesses
	// (iGUARD R4).
	MissingDeviceFence
	// MissingSyncwarp: two lanes of one warp communicate with no __syncwarp
	// or collective ordering them; independent thread scheduling (Volta+)
	// does not keep lanes in lockstep (iGUARD R2).
	MissingSyncwarp
	// ImproperLocking: accesses protected by locks that do not intersect,
	// or by a lock whose scope does not cover both threads (iGUARD R5).
	ImproperLocking
	// ReadOnlyWritten: an element of a read-only view (gpu.ReadOnly, CUDA's
	// const __restrict__ or __ldg) written while a launch that reads
	// through the view runs, which the view promises no thread and no host
	// copy does. Only the exact family checks the promise.
	ReadOnlyWritten
)

var names = [...]string{
	ScopedAtomic:       "scoped-atomic",
	MissingBlockFence:  "missing-block-fence",
	MissingDeviceFence: "missing-device-fence",
	MissingSyncwarp:    "missing-syncwarp",
	ImproperLocking:    "improper-locking",
	ReadOnlyWritten:    "read-only-written",
}

// All returns every Kind, in order.
func All() []Kind {
	return []Kind{ScopedAtomic, MissingBlockFence, MissingDeviceFence, MissingSyncwarp, ImproperLocking, ReadOnlyWritten}
}

// String returns the kind's name as the command line and JSON spell it,
// such as "missing-device-fence".
func (k Kind) String() string {
	if k >= ScopedAtomic && int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Parse returns the Kind named by s, a name String returns.
func Parse(s string) (Kind, error) {
	for k, name := range names {
		if name == s && name != "" {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("kind: unknown race kind %q", s)
}

// MarshalText encodes k as its name, so that JSON carries
// "missing-device-fence" rather than a number. The zero Kind and unknown
// values are an error: they are not races.
func (k Kind) MarshalText() ([]byte, error) {
	if k < ScopedAtomic || int(k) >= len(names) {
		return nil, fmt.Errorf("kind: cannot encode %v", k)
	}
	return []byte(names[k]), nil
}

// UnmarshalText decodes a name MarshalText wrote.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}
