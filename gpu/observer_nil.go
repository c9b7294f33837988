package gpu

import "reflect"

// nilObserver reports whether o holds a nil pointer, map, function,
// channel or slice: an Observer a caller meant to leave unset ("var det
// *race.Detector" when checking is off) that an interface no longer
// compares equal to nil, and whose first method call would crash the
// launch's goroutine.
func nilObserver(o Observer) bool {
	if o == nil {
		return false
	}
	switch v := reflect.ValueOf(o); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.Slice:
		return v.IsNil()
	}
	return false
}
