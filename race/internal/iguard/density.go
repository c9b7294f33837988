package iguard

import (
	"sync"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
)

// Which memories start with first records (see first.go). They pay off
// where most granules are touched once per synchronization state; where
// most are expanded anyway (a cell its neighbours read, a word threads
// meet at, a hash table's keys probed by several lookups) each costs a
// slot write, a record lookup and a replay on top of its entry, work the
// full entry alone would not need.
//
// So a detector remembers, per memory, how its granules ended the last
// launch that gave it first records: when at least half of those touched
// were expanded, the memory's next launches give it full entries from
// the first touch, and every densityTerm-th launch measures it again in
// case its use changed. Iterative kernels (a stencil's steps, label
// propagation's rounds, a hash table's inserts then lookups) learn after
// their first launch. The choice is made once per memory per launch, so
// one memory's metadata never mixes the two, and either gives the same
// verdicts.
type densities struct {
	mu sync.Mutex
	// m holds the dense memories, by shared.MemKey, each with the launches
	// that used the hint since it was measured.
	m map[shared.MemKey]int
}

// A dense memory gets full entries for densityTerm-1 launches, then first
// records again, to be measured anew. maxDensities bounds the memories
// remembered: past it, a new one makes the detector forget them all.
const (
	densityTerm  = 8
	maxDensities = 4096
)

// firsts reports whether a launch's metadata of m should start with first
// records. Shared memory always does: each block's is a new memory, with
// nothing to learn from an earlier one.
func (ds *densities) firsts(m *gpu.Memory) bool {
	if m.Space == gpu.SharedSpace {
		return true
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	k := shared.KeyOf(m)
	uses, dense := ds.m[k]
	if !dense {
		return true
	}
	if uses++; uses == densityTerm {
		delete(ds.m, k) // measure again
		return true
	}
	ds.m[k] = uses
	return false
}

// learn records how m's granules ended a launch with first records:
// expanded of them had entries, once had only their first record. Only
// dense memories are remembered; forgetting one is the same as learning
// it is not dense.
func (ds *densities) learn(m *gpu.Memory, expanded, once int64) {
	if m.Space == gpu.SharedSpace || expanded+once == 0 {
		return
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	k := shared.KeyOf(m)
	if expanded < once {
		delete(ds.m, k)
		return
	}
	if _, ok := ds.m[k]; !ok && len(ds.m) >= maxDensities || ds.m == nil {
		ds.m = map[shared.MemKey]int{}
	}
	ds.m[k] = 0
}
