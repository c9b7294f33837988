package gpu

import (
	"reflect"

	"github.com/warpguard/warpguard/scope"
)

// observer returns the observer of a launch whose Config names o: the
// device's, o, or both.
func (d *Device) observer(o Observer) Observer {
	dev := d.cfg.Observer
	switch {
	case dev == nil:
		return o
	case o == nil || same(o, dev):
		return dev
	}
	return observerPair{dev, o}
}

// same reports whether a and b are one observer, without the panic of
// comparing two values of one uncomparable type.
func same(a, b Observer) bool {
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.TypeOf(a).Comparable() && a == b
}

// observerPair is two observers of one launch, called in order. The two
// share a thread's observer state (Thread.SetObserverState), as any two
// observers of one launch do.
type observerPair [2]Observer

func (p observerPair) LaunchStart(g *Grid) { p[0].LaunchStart(g); p[1].LaunchStart(g) }
func (p observerPair) LaunchEnd(g *Grid, err error) {
	p[0].LaunchEnd(g, err)
	p[1].LaunchEnd(g, err)
}
func (p observerPair) BlockStart(g *Grid, b int)   { p[0].BlockStart(g, b); p[1].BlockStart(g, b) }
func (p observerPair) BlockEnd(g *Grid, b int)     { p[0].BlockEnd(g, b); p[1].BlockEnd(g, b) }
func (p observerPair) Access(t *Thread, a *Access) { p[0].Access(t, a); p[1].Access(t, a) }
func (p observerPair) Fence(t *Thread, s scope.Scope, o Order) {
	p[0].Fence(t, s, o)
	p[1].Fence(t, s, o)
}
func (p observerPair) Sync(t *Thread, s Sync) { p[0].Sync(t, s); p[1].Sync(t, s) }
