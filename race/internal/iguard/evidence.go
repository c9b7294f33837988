package iguard

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/kind"
	"github.com/warpguard/warpguard/race/report"
)

// side describes record r of a launch of g, made at site with call stack
// stack.
func side(r *record, site gpu.Site, g *gpu.Grid, stack []gpu.Site) report.Side {
	b := r.gid() / g.BlockSize
	rank := r.gid() - b*g.BlockSize
	return report.Side{
		Block: shared.DimIndex(g.GridDim, b), Thread: shared.DimIndex(g.BlockDim, rank), BlockID: b, GlobalID: r.gid(),
		Warp: rank / g.WarpSize, Lane: rank % g.WarpSize,
		Op: r.op, Order: r.order, Scope: r.scope, Site: site, Stack: stack,
	}
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
	pw := fmt.Sprintf("its %s at %s", prev.Op, prev.Where())
	switch f.kind {
	case kind.ScopedAtomic:
		narrow, other := prev, cur
		if !(f.prev.strong && !covers(f.prev.scope, &f.prev, c)) {
			narrow, other = cur, prev
		}
		return fmt.Sprintf("The %v at %s has %v scope, which does not include %s; no fence orders the two accesses. Give it a scope that includes both threads.",
			narrow.Op, narrow.Where(), narrow.Scope, other.Who())
	case kind.MissingSyncwarp:
		return fmt.Sprintf("Lanes %d and %d of warp %d: no __syncwarp or warp collective ordered the %s's %s at %s before %s, and the %s executed no fence since. Lanes of a warp do not run in lockstep (independent thread scheduling): put a __syncwarp with both lanes in its mask between the two accesses.",
			prev.Lane, cur.Lane, cur.Warp, role, prev.Op, prev.Where(), cw, role)
	case kind.MissingBlockFence:
		if f.shared&fDevShared != 0 {
			return fmt.Sprintf("The %s, %s, executed no device-scope fence between %s and %s; threads of other blocks have read this word too: put a __threadfence() after the write, or a __syncthreads both threads pass if the blocks' readers are ordered otherwise.", role, prev.Who(), pw, cw)
		}
		return fmt.Sprintf("The %s, %s, executed no fence between %s and %s, and no __syncthreads separates them: put a __syncthreads both threads pass between the two accesses.", role, prev.Who(), pw, cw)
	case kind.MissingDeviceFence:
		return fmt.Sprintf("The %s, %s, executed no device-scope fence between %s and %s; the threads are in different blocks: put a __threadfence() after the write, before the flag that publishes it, and have the reader acquire that flag (LoadAcquire, or a strong read then __threadfence()).", role, prev.Who(), pw, cw)
	case kind.ImproperLocking:
		return fmt.Sprintf("The %s, %s, fenced after %s, but no lock protects both accesses: %s held %s, %s holds %s. (A lock is held from a successful CAS(0→1) followed by a fence of its scope, until an exchange of 0.)",
			role, prev.Who(), pw, "the earlier accesses", describeLocks(f.locks), "this one", describeLocks(c.locks))
	}
	return ""
}

// lockWord names the word a lock lives at, as `global "lock"[0]`.
func lockWord(k lockKey) string {
	r := report.Report{Mem: k.mem, Index: k.index}
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
