package hb

import "github.com/warpguard/warpguard/scope"

// A pendPart is a release that a strong read found and no fence has
// acquired yet: a part of a release state (see relInfo), and the
// narrowest fence scope that acquires it, its part's scope.
type pendPart struct {
	v *vclock
	s scope.Scope
}

// pendRoom is how many parts a thread keeps pending before it joins
// those of each scope into one.
const pendRoom = 6

// A pending is what a thread's strong reads found released to it and no
// fence has acquired: the parts as found, joined only when a fence takes
// them, with what else it acquires, in one join (see joinAll). A fence
// of scope s acquires the parts of scope s or narrower: a release to the
// threads of a warp, block or device that a strong read of scope m found
// reaches a fence of scope s when the part's scope is at most both.
type pending struct {
	parts [pendRoom]pendPart
	n     int
}

// add keeps v, a part of scope s, pending; a part already pending is
// kept once, at the narrower of its scopes.
func (p *pending) add(v *vclock, s scope.Scope, n *counters) {
	if v == nil {
		return
	}
	for i := range p.parts[:p.n] {
		if p.parts[i].v == v {
			p.parts[i].s = min(p.parts[i].s, s)
			return
		}
	}
	if p.n == pendRoom {
		p.compact(n)
	}
	p.parts[p.n] = pendPart{v, s}
	p.n++
}

// compact joins the pending parts of each scope into one.
func (p *pending) compact(n *counters) {
	var out pending
	for s := scope.Warp; s <= scope.System; s++ {
		var buf [pendRoom]*vclock
		vs := buf[:0]
		for _, pp := range p.parts[:p.n] {
			if pp.s == s {
				vs = append(vs, pp.v)
			}
		}
		if v := joinAll(vs, nil, n); v != nil {
			out.parts[out.n] = pendPart{v, s}
			out.n++
		}
	}
	*p = out
}

// take appends to into the parts a fence of scope s acquires, and drops
// them: what the thread knows after the fence covers them.
func (p *pending) take(s scope.Scope, into []*vclock) []*vclock {
	kept := 0
	for _, pp := range p.parts[:p.n] {
		if pp.s <= s {
			into = append(into, pp.v)
		} else {
			p.parts[kept] = pp
			kept++
		}
	}
	clear(p.parts[kept:p.n])
	p.n = kept
	return into
}

// knows reports whether a fence of system scope would order e before the
// thread by what is pending.
func (p *pending) knows(e epoch) bool {
	for _, pp := range p.parts[:p.n] {
		if pp.v.knows(e) {
			return true
		}
	}
	return false
}
