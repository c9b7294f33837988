package race

import (
	"fmt"
	"strings"
)

// Configs returns the names of the detector configurations [Config]
// knows: "off", "central", "plain", "coalesce", "backoff", "opt" and
// "precise".
func Configs() []string {
	return []string{"off", "central", "plain", "coalesce", "backoff", "opt", "precise"}
}

// Config returns the options of the named configuration:
//
//   - off: no detection (Options.Off; attach no observer);
//   - central: every event shipped to one checking goroutine (Barracuda);
//   - plain: iGUARD's per-entry locking without its contention
//     optimizations: a tight spin on the entry, no coalescing
//     (iGUARD with CONT_OPT=0);
//   - coalesce, backoff: plain with one of iGUARD's two optimizations;
//   - opt: both, the default (the zero Options);
//   - precise: the precise mode (Options.Precise), scoped
//     happens-before instead of iGUARD's rules.
//
// A name may carry suffixes, each after a colon, for any configuration
// but off, central and precise: ":spin", ":mutex" or ":striped" sets Options.Lock,
// ":full" sets Options.FullEntries and ":history" sets Options.History,
// so that "opt:mutex" is opt with a sync.Mutex per entry, "plain:full"
// is plain with a full entry per granule from its first touch, and
// "opt:history" is opt with reports that name both sites, as package
// racetest's detectors. Without ":history" the options have no history.
func Config(name string) (Options, error) {
	base, suffixes, ok := strings.Cut(name, ":")
	o, err := baseConfig(base)
	if err != nil || !ok {
		return o, err
	}
	if o.Off || o.Central || o.Precise {
		return Options{}, fmt.Errorf("race: configuration %q takes no suffix (%q)", base, suffixes)
	}
	for _, sfx := range strings.Split(suffixes, ":") {
		switch sfx {
		case "full":
			o.FullEntries = true
		case "history":
			o.History = true
		default:
			if o.Lock, err = ParseLocking(sfx); err != nil {
				return Options{}, fmt.Errorf("%w, full or history", err)
			}
		}
	}
	return o, nil
}

func baseConfig(name string) (Options, error) {
	switch name {
	case "off":
		return Options{Off: true}, nil
	case "central":
		return Options{Central: true}, nil
	case "plain":
		return Options{Lock: LockSpin, NoBackoff: true, NoCoalesce: true}, nil
	case "coalesce":
		return Options{Lock: LockSpin, NoBackoff: true}, nil
	case "backoff":
		return Options{Lock: LockSpin, NoCoalesce: true}, nil
	case "opt":
		return Options{}, nil
	case "precise":
		return Options{Precise: true}, nil
	}
	return Options{}, fmt.Errorf("race: unknown configuration %q (want one of %s)", name, strings.Join(Configs(), ", "))
}
