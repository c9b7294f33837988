package race

import (
	"fmt"
	"path"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/scope"
)

// A Report describes one race: the memory word, the two accesses, and the
// evidence that nothing ordered them.
//
// A Report marshals to JSON as described in report_json.go.
type Report struct {
	Kind   Kind        `json:"kind"`
	Launch string      `json:"launch"` // the launch's gpu.Config.Name
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
	// Launch names the side's launch (gpu.Config.Name) when it is not the
	// report's: a race between two launches that ran at once.
	Launch string `json:"launch,omitempty"`
}

// side describes record r of a launch of g, made at site with call stack
// stack.
func side(r *record, site gpu.Site, g *gpu.Grid, stack []gpu.Site) Side {
	b := r.gid() / g.BlockSize
	rank := r.gid() - b*g.BlockSize
	return Side{
		Block: dimIndex(g.GridDim, b), Thread: dimIndex(g.BlockDim, rank), BlockID: b, GlobalID: r.gid(),
		Warp: rank / g.WarpSize, Lane: rank % g.WarpSize,
		Op: r.op, Order: r.order, Scope: r.scope, Site: site, Stack: stack,
	}
}

// Who names the side's thread, as "thread (0,0,0) of block (1,0,0)".
// A side of another launch adds `of launch "name"`.
func (s Side) Who() string {
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

// where returns the side's site as gpu.Site.String writes it,
// "pkg/file.go:12" relative to its module's root, or "an unrecorded site".
func (s Side) where() string {
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
		r.Current.verb(), r.Element(), r.Current.Who(), r.Current.What(), r.Current.where(), r.Current.callers())
	fmt.Fprintf(&b, "Previous %s by %s:\n  %s at %s\n%s\n",
		strings.ToLower(r.Previous.verb()), r.Previous.Who(), r.Previous.What(), r.Previous.where(), r.Previous.callers())
	b.WriteString(r.Evidence)
	b.WriteString("\n==================")
	return b.String()
}

// evidence explains finding f for access c.
func evidence(f *finding, c *access) string {
	g := c.th.l.g
	prev, cur := side(&f.prev, f.site, g, nil), side(&c.rec, c.site, g, nil)
	role := "previous accessor"
	if !c.store {
		role = "writer"
	}
	cw := fmt.Sprintf("this %s", cur.Op)
	pw := fmt.Sprintf("its %s at %s", prev.Op, prev.where())
	switch f.kind {
	case ScopedAtomic:
		narrow, other := prev, cur
		if !(f.prev.strong && !covers(f.prev.scope, &f.prev, c)) {
			narrow, other = cur, prev
		}
		return fmt.Sprintf("The %v at %s has %v scope, which does not include %s; no fence orders the two accesses.",
			narrow.Op, narrow.where(), narrow.Scope, other.Who())
	case MissingSyncwarp:
		return fmt.Sprintf("Lanes %d and %d of warp %d: no __syncwarp or warp collective ordered the %s's %s at %s before %s, and the %s executed no fence since. Lanes of a warp do not run in lockstep (independent thread scheduling).",
			prev.Lane, cur.Lane, cur.Warp, role, prev.Op, prev.where(), cw, role)
	case MissingBlockFence:
		if f.shared&fDevShared != 0 {
			return fmt.Sprintf("The %s, %s, executed no device-scope fence between %s and %s; threads of other blocks have read this word too.", role, prev.Who(), pw, cw)
		}
		return fmt.Sprintf("The %s, %s, executed no fence between %s and %s, and no __syncthreads separates them.", role, prev.Who(), pw, cw)
	case MissingDeviceFence:
		return fmt.Sprintf("The %s, %s, executed no device-scope fence between %s and %s; the threads are in different blocks.", role, prev.Who(), pw, cw)
	case ImproperLocking:
		return fmt.Sprintf("The %s, %s, fenced after %s, but no lock protects both accesses: %s held %s, %s holds %s. (A lock is held from a successful CAS(0→1) followed by a fence of its scope, until an exchange of 0.)",
			role, prev.Who(), pw, "the earlier accesses", describeLocks(f.locks), "this one", describeLocks(c.locks))
	}
	return ""
}

// lockWord names the word a lock lives at, as `global "lock"[0]`.
func lockWord(k lockKey) string {
	r := Report{Mem: k.mem, Index: k.index}
	return r.Element()
}

// describeLocks names the locks of s for evidence, each word once: a
// device lock also carries its block identity.
func describeLocks(s *lockSet) string {
	if s.empty() {
		return "no lock"
	}
	device := map[lockKey]bool{}
	for _, id := range s.ids {
		if id.block < 0 {
			device[id.key] = true
		}
	}
	var names []string
	for _, id := range s.ids {
		switch {
		case id.block < 0:
			names = append(names, "the device-scope lock at "+lockWord(id.key))
		case !device[id.key]:
			names = append(names, fmt.Sprintf("block %d's block-scope lock at %s", id.block, lockWord(id.key)))
		}
	}
	return strings.Join(names, ", ")
}
