package main

import (
	"io"
	"maps"
	"os"

	"github.com/warpguard/warpguard/bench"
	"github.com/warpguard/warpguard/race"
)

// detectorOf returns the detector maker for run and suite: opt (their
// -config) with e, the WARPGUARD variable (see race.ParseEnv), laid over
// it, and history on unless e turns it off. log_path names a file the
// reports are also appended to, and strip_path_prefix is cut from run's
// text.
func detectorOf(e race.Env, opt race.Options) func() bench.Detector {
	opt.History = true
	opt = e.Apply(opt)
	return func() bench.Detector { return race.New(opt) }
}

// envOf returns the WARPGUARD variable (see race.ParseEnv) for command c,
// less its family and precise keys when c's command line gave -config:
// the flag names the detector there, as options in code win over the
// variable, and the variable's other keys still apply.
func envOf(c *command) (race.Env, error) {
	e, err := race.ParseEnv(os.Getenv(race.EnvVar))
	if err != nil || !c.given("config") {
		return e, err
	}
	e.Set = maps.Clone(e.Set)
	delete(e.Set, "family")
	delete(e.Set, "precise")
	return e, nil
}

// stripped is a writer that cuts e's path prefix from what it writes.
type stripped struct {
	w io.Writer
	e race.Env
}

func (s stripped) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, s.e.Strip(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// familyOf returns the family whose expected verdicts judge a run with
// opt: the Exact family's, or the IGUARD family's.
func familyOf(opt race.Options) race.Family {
	if opt.Exact() {
		return race.Exact
	}
	return race.IGUARD
}
