package race

import (
	"sync"

	"github.com/warpguard/warpguard/gpu"
)

// Sequences implements [gpu.Sequencer]: in precise mode the detector
// sequences accesses, so that a strong read is checked against the write
// it read from; the default mode does not, and its accesses take no
// mutex.
func (d *Detector) Sequences() bool { return d.pre != nil }

// Sequence implements [gpu.Sequencer]: it returns the mutex under which
// the runtime performs and reports the stores, read-modify-writes and
// strong loads of element i of m: the lock of the shadow page of the
// element's granules, one of the precise mode's stripes, which the check
// of such an access then does not take again.
// Because the check of each such access happens before the mutex is
// unlocked, the order in which the precise mode checks an element's
// writes and strong reads is the order in which they took effect, on
// every executor: a strong read acquires from the write whose value it
// returned, with no waiting and no inference from values. Only a
// detector whose Sequences reports true is asked.
func (d *Detector) Sequence(m *gpu.Memory, i int) *sync.Mutex { return d.pre.Sequence(m, i) }
