// Package scope names the synchronization scopes of the CUDA memory model —
// thread, warp, block, device and system — and decides which scope is wide
// enough to order two threads.
//
// A scope is the set of threads an atomic, fence, lock or barrier is
// guaranteed to synchronize. CUDA's scoped operations (atomicAdd_block,
// __threadfence_block, cuda::atomic_ref<T, thread_scope_device>, ...) are
// only correct when the scope covers every thread that communicates through
// them; a block-scope atomic seen from another block is a race.
//
// A [Place] says where a thread runs: its device, its launch, and its
// thread, warp and block ids in the launch. Warp and block scope include two
// threads only of one launch: block 0 of one launch is not block 0 of
// another launch running beside it. Device scope includes the threads of
// every launch on one device, and only system scope includes threads of two
// devices, so a device-scope atomic shared between two GPUs is too narrow
// (see [Common] and [Scope.Covers]).
//
// Package scope holds that vocabulary and the inclusion rule; it imports
// nothing else of warpguard, so both the runtime
// ([github.com/warpguard/warpguard/gpu]) and the detector
// ([github.com/warpguard/warpguard/race]) can share it.
package scope

import (
	"fmt"
	"strings"
)

// A Scope is one of the nested CUDA synchronization scopes. Scopes are
// ordered from narrowest to widest, so s >= o means s includes o.
//
// The zero value is [Thread], the narrowest scope.
type Scope uint8

// The scopes, narrowest first. Warp is not a CUDA thread_scope, but warp-level
// collectives (__syncwarp, shuffles) synchronize exactly one warp, so it is a
// scope here.
const (
	Thread Scope = iota // the issuing thread only
	Warp                // the lanes of one warp
	Block               // one thread block (CTA); CUDA's thread_scope_block, PTX .cta
	Device              // every thread of the grid on one GPU; thread_scope_device, PTX .gpu
	System              // the device and the host; thread_scope_system, PTX .sys
)

var names = [...]string{"thread", "warp", "block", "device", "system"}

// String returns the scope's lower-case name: "thread", "warp", "block",
// "device" or "system".
func (s Scope) String() string {
	if s.Valid() {
		return names[s]
	}
	return fmt.Sprintf("scope(%d)", uint8(s))
}

// Valid reports whether s is one of the five named scopes.
func (s Scope) Valid() bool { return s <= System }

// Includes reports whether s is at least as wide as o: every thread that o
// synchronizes, s synchronizes too.
func (s Scope) Includes(o Scope) bool { return s >= o }

// Parse returns the scope named by s. Besides the names [Scope.String]
// returns, it accepts PTX's "cta", "gpu" and "sys" and libcu++'s
// "thread_scope_block"-style names, in any case.
func Parse(s string) (Scope, error) {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "thread_scope_") {
	case "thread":
		return Thread, nil
	case "warp":
		return Warp, nil
	case "block", "cta":
		return Block, nil
	case "device", "gpu":
		return Device, nil
	case "system", "sys":
		return System, nil
	}
	return 0, fmt.Errorf("scope: unknown scope %q (want thread, warp, block, device or system)", s)
}

// MarshalText implements [encoding.TextMarshaler] with [Scope.String].
func (s Scope) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("scope: cannot marshal invalid %v", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with [Parse].
func (s *Scope) UnmarshalText(b []byte) error {
	sc, err := Parse(string(b))
	if err == nil {
		*s = sc
	}
	return err
}
