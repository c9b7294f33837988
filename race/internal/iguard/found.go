package iguard

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
	"github.com/warpguard/warpguard/race/report"
)

// found records a race that access a of thread th found. t is th's
// gpu.Thread when the check runs on it (inline), else nil (central), and
// then the site was captured at the access. path is the slot of the
// access's call path, if cached.
func (d *Engine) found(th *thread, t *gpu.Thread, a *gpu.Access, c *access, path *shared.SiteSlot, f *finding) {
	if c.site.IsZero() && t != nil {
		// The site cache keys by the frames above found, which are as
		// fixed per call path as Access's: a racy loop pays one
		// frame-pointer walk per repeat of its race, not a stack walk.
		c.site, path = d.sites.Of(t)
	}
	if d.sink.Known(f.kind, c.site, f.site) {
		return // a race already reported: skip building its evidence
	}
	r := report.Report{Kind: f.kind, Launch: th.l.g.Name, Mem: a.Mem, Index: a.Index,
		Current: side(&c.rec, c.site, th.l.g, d.sites.StackOf(t, path)), Previous: side(&f.prev, f.site, th.l.g, f.stack), Evidence: evidence(f, c)}
	d.sink.Keep(r, t)
}
