package kernels

import (
	"fmt"
	"strings"

	"github.com/warpguard/warpguard/gpu"
)

// ExposeBound is how many schedules [Expose] tries, at most, by default:
// the default order, then random orders seeded 1 to ExposeBound-1.
//
// A detector sees only the interleavings that happen, and some injected
// races need two blocks to meet at the injected code (a thief stealing
// across blocks, a lock taken while the owner pushes). Left to the Go
// scheduler, a loaded machine may never run them so. Each trial of a
// search is a deterministic launch (gpu.LaunchConfig.Deterministic), whose
// interleaving is a function of the kernel, the schedule and the seed
// alone: whether a search finds a race cannot depend on the machine's
// load. The search runs at run time, over several seeds rather than one
// pinned seed, so that a change in how the runtime schedules, which
// reshuffles what each seed does, still leaves seeds that expose the race.
const ExposeBound = 16

// A Trial is one schedule of a search for an injected race.
type Trial struct {
	Schedule gpu.Schedule // ScheduleDefault or ScheduleRandom
	Seed     uint64       // ScheduleRandom's seed; 0 for the default order
}

// Trials returns the first n trials of a search, in the order [Expose]
// tries them: the default order, then random orders seeded 1, 2, ...
// ScheduleReverse is not among them: one more fixed order adds little to
// the random ones (TestReverseSchedule runs the clean kernels under it).
func Trials(n int) []Trial {
	ts := make([]Trial, 0, max(n, 0))
	for i := range n {
		if i == 0 {
			ts = append(ts, Trial{Schedule: gpu.ScheduleDefault})
			continue
		}
		ts = append(ts, Trial{Schedule: gpu.ScheduleRandom, Seed: uint64(i)})
	}
	return ts
}

// Apply sets cfg to run the trial's schedule. Under the Fibers executor
// the launch is deterministic, so the trial replays the same
// interleaving on every run; the Goroutines executor cannot be, and there
// the schedule orders only blocks and thread starts (see gpu.Schedule).
func (t Trial) Apply(cfg *gpu.LaunchConfig) {
	cfg.Schedule, cfg.Seed = t.Schedule, t.Seed
	cfg.Deterministic = cfg.Executor == gpu.Fibers
}

// String returns "default" or "random seed N".
func (t Trial) String() string {
	if t.Schedule == gpu.ScheduleRandom {
		return fmt.Sprintf("random seed %d", t.Seed)
	}
	return t.Schedule.String()
}

// Expose runs try under each of the first n trials in turn (n < 1 means
// [ExposeBound]) until try reports the race found or returns an error,
// and returns the trials it ran, the last one deciding. It stops at an
// error, which it returns naming the trial.
func Expose(n int, try func(Trial) (found bool, err error)) (ran []Trial, found bool, err error) {
	if n < 1 {
		n = ExposeBound
	}
	for _, t := range Trials(n) {
		ran = append(ran, t)
		found, err = try(t)
		if err != nil {
			return ran, false, fmt.Errorf("schedule %v: %w", t, err)
		}
		if found {
			return ran, true, nil
		}
	}
	return ran, false, nil
}

// TrialsString names trials for a report of a failed search: "default,
// random seeds 1-15".
func TrialsString(ts []Trial) string {
	var parts []string
	var seeds []uint64
	for _, t := range ts {
		if t.Schedule == gpu.ScheduleRandom {
			seeds = append(seeds, t.Seed)
		} else {
			parts = append(parts, t.String())
		}
	}
	switch {
	case len(seeds) == 1:
		parts = append(parts, fmt.Sprintf("random seed %d", seeds[0]))
	case len(seeds) > 1 && seeds[len(seeds)-1]-seeds[0] == uint64(len(seeds)-1):
		parts = append(parts, fmt.Sprintf("random seeds %d-%d", seeds[0], seeds[len(seeds)-1]))
	case len(seeds) > 1:
		parts = append(parts, "random seeds "+strings.Trim(fmt.Sprint(seeds), "[]"))
	}
	return strings.Join(parts, ", ")
}
