package race

import (
	"fmt"
	"strings"
)

// Configs returns the names of the detector configurations [Config]
// knows: "off", the IGUARD family's "central", "plain", "coalesce",
// "backoff" and "opt", and "exact", the default.
func Configs() []string {
	return []string{"off", "central", "plain", "coalesce", "backoff", "opt", "exact"}
}

// Config returns the options of the named configuration:
//
//   - off: no detection (Options.Off; attach no observer);
//   - exact: the Exact family, the default (the zero Options); "precise",
//     its earlier name, is read as exact;
//   - the IGUARD family, iGUARD's published rules, with its contention
//     optimizations switchable for comparison:
//   - central: every event shipped to one checking goroutine (Barracuda);
//   - plain: iGUARD's per-entry locking without its contention
//     optimizations: a tight spin on the entry, no coalescing
//     (iGUARD with CONT_OPT=0);
//   - coalesce, backoff: plain with one of iGUARD's two optimizations;
//   - opt: both.
//
// A name may carry suffixes, each after a colon: ":history" sets
// Options.History for any configuration but off, so that "exact:history"
// and "opt:history" report both sites, as package racetest's detectors;
// ":full" sets Options.FullEntries for any but off and central, so that
// "plain:full" is plain with a full entry per granule from its first
// touch and "exact:full" is exact without first records, its ablation
// (the exact engine has no coalescing or backoff to switch off: see the
// package doc's "How the Exact family checks"); ":flat" sets Options.FlatClocks
// for exact, its ablation of clock lineages; and for
// the IGUARD family's configurations but central, ":spin", ":mutex" or
// ":striped" sets Options.Lock, so that "opt:mutex" is opt with a
// sync.Mutex per entry. Without ":history" the options have no history.
func Config(name string) (Options, error) {
	base, suffixes, ok := strings.Cut(name, ":")
	o, err := baseConfig(base)
	if err != nil || !ok {
		return o, err
	}
	for _, sfx := range strings.Split(suffixes, ":") {
		if err := o.suffix(base, sfx); err != nil {
			return Options{}, err
		}
	}
	return o, nil
}

// suffix applies suffix sfx of configuration base to o.
func (o *Options) suffix(base, sfx string) error {
	switch {
	case o.Off:
		return fmt.Errorf("race: configuration %q takes no suffix (%q)", base, sfx)
	case sfx == "history":
		o.History = true
		return nil
	case sfx == "full" && !o.Central:
		o.FullEntries = true
		return nil
	case sfx == "flat" && o.Exact():
		o.FlatClocks = true
		return nil
	case o.Central:
		return fmt.Errorf("race: configuration %q takes no suffix but full and history (%q)", base, sfx)
	case o.Exact():
		return fmt.Errorf("race: configuration %q takes no suffix but full, flat and history (%q)", base, sfx)
	}
	var err error
	if o.Lock, err = ParseLocking(sfx); err != nil {
		return fmt.Errorf("%w, full or history", err)
	}
	return nil
}

func baseConfig(name string) (Options, error) {
	switch name {
	case "off":
		return Options{Off: true}, nil
	case "central":
		return Options{Family: IGUARD, Central: true}, nil
	case "plain":
		return Options{Family: IGUARD, Lock: LockSpin, NoBackoff: true, NoCoalesce: true}, nil
	case "coalesce":
		return Options{Family: IGUARD, Lock: LockSpin, NoBackoff: true}, nil
	case "backoff":
		return Options{Family: IGUARD, Lock: LockSpin, NoCoalesce: true}, nil
	case "opt":
		return Options{Family: IGUARD}, nil
	case "exact", "precise":
		return Options{}, nil
	}
	return Options{}, fmt.Errorf("race: unknown configuration %q (want one of %s)", name, strings.Join(Configs(), ", "))
}
