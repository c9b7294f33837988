package kernels

import (
	"context"
	"fmt"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// The switch names of this file's injections: the table and the kernel
// body name them by constant, so that a typo is a compile error.
const (
	injBlockScopeCas = "block-scope-cas"
	injWeakProbe     = "weak-probe"
)

// LibHashTable builds an open-addressing hash table of int32 keys and values
// with linear probing, then looks keys up in a second launch.
//
// An insert claims a slot by a device-scope CAS of its key into an empty
// (zero) key word: the CAS both reads the slot and claims it, so no thread
// ever reads a key word any other way while others insert. The value is
// written by the key's only inserter; lookups run in their own launch,
// after every insert.
func LibHashTable() *Entry {
	return &Entry{
		Name: "lib/hashtable",
		Doc:  "lock-free open-addressing hash table: device-scope CAS inserts, lookups in a later launch",
		Injections: []Injection{
			{Name: injWeakProbe, Doc: "inserts peek at a slot's key with a weak load before the CAS (SlabHash issue #23)",
				Expect: []kind.Kind{kind.MissingDeviceFence, kind.MissingBlockFence, kind.MissingSyncwarp}, Where: where((*hashTable).insert)},
			{Name: injBlockScopeCas, Doc: "inserts claim slots with a block-scope CAS",
				Expect: []kind.Kind{kind.ScopedAtomic}, Where: where((*hashTable).insert)},
		},
		Setup: setupHashTable,
	}
}

type hashTable struct {
	n, queries, capacity, blocks, threads int
	keys, vals, qs, found                 gpu.Buffer[int32]
	hostKeys, hostVals, hostQs            []int32
	inject                                string
}

func setupHashTable(d *gpu.Device, p Params) (*Run, error) {
	h := &hashTable{n: 20_000, blocks: 8, threads: 256, inject: p.Inject}
	if p.Size == Paper {
		h.n, h.blocks = 1_000_000, 64
	}
	h.capacity, h.queries = 2*h.n, 2*h.n
	r := newRand(p.Seed)
	perm := r.Perm(4 * h.n) // distinct keys, and as many absent ones to query
	h.hostKeys, h.hostVals, h.hostQs = make([]int32, h.n), make([]int32, h.n), make([]int32, h.queries)
	for i := range h.n {
		h.hostKeys[i], h.hostVals[i] = int32(perm[i]+1), r.Int32()
	}
	for i := range h.hostQs {
		h.hostQs[i] = int32(perm[i] + 1) // the first n present, the rest absent
	}
	h.keys, h.vals = gpu.Alloc[int32](d, "keys", h.capacity), gpu.Alloc[int32](d, "values", h.capacity)
	h.qs, h.found = gpu.FromHost(d, "queries", h.hostQs), gpu.Alloc[int32](d, "found", h.queries)
	return &Run{Launch: h.launch, Check: h.check}, nil
}

func (h *hashTable) launch(ctx context.Context, launch LaunchFunc) error {
	inK, inV := h.hostKeys, h.hostVals
	ins := func(t *gpu.Thread) {
		for i := t.GlobalID(); i < h.n; i += h.blocks * h.threads {
			h.insert(t, inK[i], inV[i])
		}
	}
	if err := launch(ctx, launchCfg("hash-insert", h.blocks, h.threads), ins); err != nil {
		return err
	}
	return launch(ctx, launchCfg("hash-lookup", h.blocks, h.threads), h.lookupAll)
}

// slot returns the home slot of key (Knuth's multiplicative hash).
func (h *hashTable) slot(key int32) int { return int(uint32(key) * 2654435761 % uint32(h.capacity)) }

// insert puts key and value in the first slot, from key's home slot on,
// that is empty or already holds key.
func (h *hashTable) insert(t *gpu.Thread, key, val int32) {
	s := scope.Device
	if h.inject == injBlockScopeCas {
		s = scope.Block
	}
	for i := h.slot(key); ; i = (i + 1) % h.capacity {
		if h.inject == injWeakProbe {
			if k := h.keys.Load(t, i); k != 0 && k != key {
				continue
			}
		}
		if prev := h.keys.AtomicCAS(t, i, 0, key, s); prev == 0 || prev == key {
			h.vals.Store(t, i, val)
			return
		}
	}
}

// lookupAll looks up every query: the value if the key is present, -1 if
// not. (Values are non-negative.) The table and the queries are not
// written while lookups run, so they are read as a CUDA lookup kernel
// takes them: const int* __restrict__.
func (h *hashTable) lookupAll(t *gpu.Thread) {
	qs, keys, vals := h.qs.ReadOnly(), h.keys.ReadOnly(), h.vals.ReadOnly()
	for q := t.GlobalID(); q < h.queries; q += h.blocks * h.threads {
		key, res := qs.Load(t, q), int32(-1)
		for i := h.slot(key); ; i = (i + 1) % h.capacity {
			k := keys.Load(t, i)
			if k == key {
				res = vals.Load(t, i)
			}
			if k == key || k == 0 {
				break
			}
		}
		h.found.Store(t, q, res)
	}
}

func (h *hashTable) check() error {
	want := make(map[int32]int32, h.n)
	for i, k := range h.hostKeys {
		want[k] = h.hostVals[i]
	}
	for q, got := range h.found.Host() {
		w, ok := want[h.hostQs[q]]
		if !ok {
			w = -1
		}
		if got != w {
			return fmt.Errorf("lookup of key %d = %d, want %d", h.hostQs[q], got, w)
		}
	}
	return nil
}
