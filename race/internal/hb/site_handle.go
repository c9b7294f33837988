package hb

import (
	"github.com/warpguard/warpguard/gpu"
	"github.com/warpguard/warpguard/race/internal/shared"
)

// handle returns the handle a record keeps for an access made at site
// through call path path (see prec): the path's slot's, or, for a site
// whose path the cache does not hold, the site's bare slot's. It is 0
// without history (no site), and for a slot made after the handles ran
// out, whose record then names no site: a report re-resolves its current
// side's, and shows "?" for an earlier side's.
func (p *Engine) handle(site gpu.Site, path *shared.SiteSlot) uint32 {
	if path == nil && !site.IsZero() {
		path = p.sites.BareSlot(site)
	}
	h, _ := path.Handle()
	return h
}

// slotOf returns the site slot of record x: nil for none.
func (p *Engine) slotOf(x *prec) *shared.SiteSlot { return p.sites.Slot(x.path) }
