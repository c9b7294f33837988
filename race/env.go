package race

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// EnvVar is the environment variable that configures detection in tests
// and in the warpguard command, as GORACE configures Go's race detector.
// Its value is parsed by [ParseEnv].
const EnvVar = "WARPGUARD"

// Env is the configuration a WARPGUARD value gives.
type Env struct {
	// Options holds HaltOnFirst (halt_on_error), MaxReports
	// (max_reports), History (history), Family (family, or precise) and
	// Granularity (granularity); its other fields are zero.
	Options Options
	// Set says which of the keys were given, by name, so that a caller
	// can lay them over its own defaults (see [Env.Apply]).
	Set map[string]bool
	// LogPath, if not empty, names the file reports are also written to,
	// as LogPath.<pid> (log_path).
	LogPath string
	// StripPathPrefix is cut from the file paths of reports written as
	// text (strip_path_prefix).
	StripPathPrefix string
}

// set parses the value v of key k into e; known is false for a key it
// does not know.
func (e *Env) set(k, v string) (known bool, err error) {
	switch k {
	case "halt_on_error", "history", "precise":
		return true, e.setBool(k, v)
	case "max_reports":
		return true, e.setMaxReports(v)
	case "granularity":
		return true, e.setGranularity(v)
	case "family":
		f, err := ParseFamily(v)
		e.Options.Family = f
		return true, err
	case "log_path":
		e.LogPath = v
	case "strip_path_prefix":
		e.StripPathPrefix = v
	default:
		return false, nil
	}
	return true, nil
}

// setBool parses v, 0 or 1, as the value of the switch k.
func (e *Env) setBool(k, v string) error {
	on, err := envBool(v)
	switch {
	case err != nil:
		return err
	case k == "halt_on_error":
		e.Options.HaltOnFirst = on
	case k == "history":
		e.Options.History = on
	case on:
		e.Options.Family = Exact
	default:
		e.Options.Family = IGUARD
	}
	return nil
}

// setMaxReports parses v, a positive count, as max_reports.
func (e *Env) setMaxReports(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return errors.New("want a positive integer")
	}
	e.Options.MaxReports = n
	return nil
}

// setGranularity parses v, a power of two from 1 to 8, as the value of
// granularity.
func (e *Env) setGranularity(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 8 || n&(n-1) != 0 {
		return errors.New("want 1, 2, 4 or 8")
	}
	e.Options.Granularity = n
	return nil
}

// ParseEnv parses s, a WARPGUARD value: space-separated key=value pairs,
//
//	halt_on_error=1 max_reports=10 history=1 log_path=/tmp/wg strip_path_prefix=/src/
//
// with the keys halt_on_error (0 or 1: stop a launch at its first race),
// max_reports (a positive count of reports kept), history (0 or 1: name
// both sites of every race, with call stacks), family (exact or iguard:
// Options.Family), precise (1 for family=exact, 0 for family=iguard, its
// earlier spelling), granularity (1, 2, 4 or 8: Options.Granularity, the
// bytes of dynamic shared memory one entry covers), log_path and
// strip_path_prefix. The error
// names the first key that is unknown, malformed or out of range.
func ParseEnv(s string) (Env, error) {
	e := Env{Set: map[string]bool{}}
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Env{}, fmt.Errorf("race: %s: %q is not key=value", EnvVar, f)
		}
		known, err := e.set(k, v)
		if !known {
			return Env{}, fmt.Errorf("race: %s: unknown key %q; the keys are halt_on_error, max_reports, history, family, precise, granularity, log_path and strip_path_prefix", EnvVar, k)
		}
		if err != nil {
			return Env{}, fmt.Errorf("race: %s: %s=%q: %w", EnvVar, k, v, err)
		}
		e.Set[k] = true
	}
	return e, nil
}

// Apply returns o with the options e sets laid over it.
func (e Env) Apply(o Options) Options {
	if e.Set["halt_on_error"] {
		o.HaltOnFirst = e.Options.HaltOnFirst
	}
	if e.Set["history"] {
		o.History = e.Options.History
	}
	if e.Set["max_reports"] {
		o.MaxReports = e.Options.MaxReports
	}
	if e.Set["granularity"] {
		o.Granularity = e.Options.Granularity
	}
	if e.Set["precise"] || e.Set["family"] {
		o.Family, o.Precise = e.Options.Family, false
	}
	return o
}

// Strip returns text with every occurrence of e.StripPathPrefix cut.
func (e Env) Strip(text string) string {
	if e.StripPathPrefix == "" {
		return text
	}
	return strings.ReplaceAll(text, e.StripPathPrefix, "")
}

// Log appends rs, each stripped as Strip strips, to the log file
// e.LogPath names, suffixed with the process id as GORACE's log_path is;
// with no LogPath or no reports it does nothing.
func (e Env) Log(rs []Report) error {
	if e.LogPath == "" || len(rs) == 0 {
		return nil
	}
	f, err := os.OpenFile(fmt.Sprintf("%s.%d", e.LogPath, os.Getpid()), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	for _, r := range rs {
		fmt.Fprintln(f, e.Strip(r.String()))
	}
	return f.Close()
}

// envBool parses a switch's value, 0 or 1.
func envBool(v string) (bool, error) {
	switch v {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, errors.New("want 0 or 1")
}
