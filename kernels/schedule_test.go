package kernels_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/warpguard/warpguard/gpu"
)

// TestReverseSchedule runs every clean kernel outside the micro and large
// groups under ScheduleReverse, deterministically, and requires each to
// finish with the right output. Reverse resumes the most recently woken
// thread first; a thread that yields while spinning on a lock or flag
// must still resume after the threads it waits for, or the kernel spins
// forever (scor/uts, scor/reduction and contention/spin-barrier did, with
// no watchdog to stop them).
func TestReverseSchedule(t *testing.T) {
	t.Parallel()
	for _, k := range nonMicro() {
		if strings.HasPrefix(k.Name, "large/") {
			continue
		}
		launchErr, checkErr := run(t, k, "", gpu.Fibers, nil, func(c *gpu.LaunchConfig) {
			c.Schedule, c.Deterministic, c.Timeout = gpu.ScheduleReverse, true, 20*time.Second*raceSlowdown
		})
		assert.NoError(t, launchErr, k.Name)
		assert.NoError(t, checkErr, k.Name)
	}
}
