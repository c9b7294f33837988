// Package report holds the race reports the detector of package race
// makes: a [Report] names the raced element and its two sides, each a
// [Side], and marshals to JSON. It is a leaf under package race, as
// package kind is, so that each of the detector's checking engines builds
// reports without importing the detector; package race declares its
// Report and Side as these types.
package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/scope"
)

// A Report describes one race: the memory word, the two accesses, and the
// evidence that nothing ordered them.
//
// A Report marshals to JSON as [Schema] describes.
type Report struct {
	Kind   kind.Kind   `json:"kind"`
	Launch string      `json:"launch"` // the launch's gpu.LaunchConfig.Name
	Mem    *gpu.Memory `json:"memory"` // the buffer or shared array
	Index  int         `json:"index"`  // the element the current access touched
	// Current is the access that found the race; Previous the earlier
	// access it races with (the last writer for a load, the last accessor
	// for a store or atomic).
	Current  Side `json:"current"`
	Previous Side `json:"previous"`
	// Evidence says, in words, why the pair is unordered: which fence,
	// barrier, scope or lock is missing, and on whose side.
	Evidence string `json:"evidence"`
}

// A Side is one access of a race.
type Side struct {
	Block    gpu.Dim3    `json:"block"`     // blockIdx
	Thread   gpu.Dim3    `json:"thread"`    // threadIdx
	BlockID  int         `json:"block_id"`  // linear block id
	GlobalID int         `json:"global_id"` // linear thread id in the grid
	Warp     int         `json:"warp"`      // the warp's index in the block
	Lane     int         `json:"lane"`      // the lane in its warp
	Op       gpu.Op      `json:"op"`
	Order    gpu.Order   `json:"order"`
	Scope    scope.Scope `json:"scope"` // the atomic's or ordering access's scope
	// Site is the kernel line of the access. The previous side's site is
	// known only when the detector keeps history (Options.History).
	Site gpu.Site `json:"site"`
	// Stack is the access's call stack, with history: at most a few
	// kernel frames, innermost first (Stack[0] is Site), up to the
	// kernel function; the runtime's frames are left out. Without
	// history it is empty, and Site is the only frame.
	Stack []gpu.Site `json:"stack,omitempty"`
	// Launch names the side's launch (gpu.LaunchConfig.Name) in a race
	// between two launches that ran at once, on both sides; the Exact
	// family follows each name with "#n", the launch's place in the order
	// the overlapping launches started, when the two share one. It is
	// empty in a race within one launch.
	Launch string `json:"launch,omitempty"`
	// Host marks an access of the host (a CopyIn, CopyOut or Fill made
	// while a launch ran), which no thread made: Launch then names the
	// host function, as "host Fill".
	Host bool `json:"host,omitempty"`
}

// Who names the side's thread, as "thread (0,0,0) of block (1,0,0)".
// A side of another launch adds `of launch "name"`; a host side is "the
// host (Fill)".
func (s Side) Who() string {
	if s.Host {
		return fmt.Sprintf("the host (%s)", strings.TrimPrefix(s.Launch, "host "))
	}
	if s.Launch != "" {
		return fmt.Sprintf("thread %v of block %v of launch %q", s.Thread, s.Block, s.Launch)
	}
	return fmt.Sprintf("thread %v of block %v", s.Thread, s.Block)
}

// What names the side's operation, as "weak load" or "block-scope
// atomicExch".
func (s Side) What() string {
	switch {
	case s.Op.IsRMW():
		return fmt.Sprintf("%v-scope %v", s.Scope, s.Op)
	case s.Order == gpu.Weak:
		return "weak " + s.Op.String()
	case s.Order == gpu.Volatile:
		return "volatile " + s.Op.String()
	}
	return fmt.Sprintf("%v-scope %v %v", s.Scope, s.Order, s.Op)
}

// Where names the side's site as gpu.Site.String writes it,
// "pkg/file.go:12" relative to its module's root, or "an unrecorded site".
func (s Side) Where() string {
	if s.Site.IsZero() {
		return "an unrecorded site"
	}
	return s.Site.String()
}

// callers returns the lines of the side's stack past its site, one per
// frame, as "    called from pkg/kernel.go:30 (pkg.Kernel.func1)\n"; ""
// for a stack of one frame or none.
func (s Side) callers() string {
	var b strings.Builder
	for i := 1; i < len(s.Stack); i++ {
		f := s.Stack[i]
		fmt.Fprintf(&b, "    called from %v (%s)\n", f, path.Base(f.Function()))
	}
	return b.String()
}

// verb returns "Read", "Write" or "Atomic update" for the side's op.
func (s Side) verb() string {
	switch {
	case s.Op.IsRMW():
		return "Atomic update"
	case s.Op == gpu.OpStore:
		return "Write"
	}
	return "Read"
}

// Element names the raced element, as `global "x"[3]` or
// `shared "tile"[3] of block (2,0,0)`.
func (r Report) Element() string {
	if r.Mem == nil {
		return fmt.Sprintf("?[%d]", r.Index)
	}
	if r.Mem.Space == gpu.SharedSpace {
		return fmt.Sprintf("shared %q[%d] of block %v", r.Mem.Name, r.Index, r.Mem.BlockIdx())
	}
	return fmt.Sprintf("global %q[%d]", r.Mem.Name, r.Index)
}

// String formats the report the way `go test -race` prints a data race.
func (r Report) String() string {
	var b strings.Builder
	b.WriteString("==================\n")
	fmt.Fprintf(&b, "WARNING: SCOPED RACE (%v)\n", r.Kind)
	fmt.Fprintf(&b, "%s of %s by %s:\n  %s at %s\n%s\n",
		r.Current.verb(), r.Element(), r.Current.Who(), r.Current.What(), r.Current.Where(), r.Current.callers())
	fmt.Fprintf(&b, "Previous %s by %s:\n  %s at %s\n%s\n",
		strings.ToLower(r.Previous.verb()), r.Previous.Who(), r.Previous.What(), r.Previous.Where(), r.Previous.callers())
	b.WriteString(r.Evidence)
	b.WriteString("\n==================")
	return b.String()
}
