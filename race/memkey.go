package race

import (
	"cmp"

	"github.com/warpguard/warpguard/gpu"
)

// A memKey names a memory in the detector's tables. gpu.Memory.ID is
// unique on its device only, and one detector may observe launches on
// several devices, each numbering its memories from 1: so the tables key
// memories by their device's number too, and the memories of two devices
// never share metadata.
type memKey struct{ dev, id uint64 }

// keyOf returns m's key.
func keyOf(m *gpu.Memory) memKey { return memKey{m.DeviceID, m.ID} }

// compareKeys orders keys by device, then id.
func compareKeys(a, b memKey) int {
	return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.id, b.id))
}
