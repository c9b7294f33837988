package shared

import (
	"cmp"

	"github.com/warpguard/warpguard/gpu"
)

// A MemKey names a memory in the detector's tables. gpu.Memory.ID is
// unique on its device only, and one detector may observe launches on
// several devices, each numbering its memories from 1: so the tables key
// memories by their device's number too, and the memories of two devices
// never share metadata.
type MemKey struct{ dev, id uint64 }

// KeyOf returns m's key.
func KeyOf(m *gpu.Memory) MemKey { return MemKey{m.DeviceID, m.ID} }

// CompareKeys orders keys by device, then id.
func CompareKeys(a, b MemKey) int {
	return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.id, b.id))
}
