package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/warpguard/warpguard/race"
)

// TestEnvironment sets WARPGUARD, so it runs alone (t.Setenv).
func TestEnvironment(t *testing.T) {
	t.Setenv(race.EnvVar, "max_reports=bad")
	for _, args := range [][]string{{"run", "scor/1dconv"}, {"suite", "-kernels", "scor/1dconv"}} {
		code, _, errs := runCmd(args...)
		require.Equal(t, exitUsage, code, "%q", args)
		require.Contains(t, errs, `WARPGUARD: max_reports="bad": want a positive integer`, "%q", args)
	}

	log := filepath.Join(t.TempDir(), "races")
	t.Setenv(race.EnvVar, "history=0 log_path="+log)
	code, out, _ := runCmd("run", "micro/race_interblock_blkatom")
	require.Equal(t, exitRaces, code)
	require.Contains(t, out, "an unrecorded site", "history=0 reaches the detector")
	text, err := os.ReadFile(fmt.Sprintf("%s.%d", log, os.Getpid()))
	require.NoError(t, err)
	require.Contains(t, out, strings.TrimSpace(string(text)), "the log holds the reports run printed")

	t.Setenv(race.EnvVar, "strip_path_prefix=SCOPED")
	_, out, _ = runCmd("run", "micro/race_interblock_blkatom")
	require.Contains(t, out, "WARNING:  RACE (", "the prefix is cut from the text")
}

// TestConfigFlagWinsOverEnvFamily: WARPGUARD's family decides the
// detector when the command line gives no -config, and an explicit
// -config wins over it, in run and in suite. The kernel's race is one
// the IGUARD family reports and the Exact family does not.
func TestConfigFlagWinsOverEnvFamily(t *testing.T) {
	const k = "micro/race_interblock_blkfence_raw"
	t.Setenv(race.EnvVar, "family=iguard")
	code, _, _ := runCmd("run", k)
	require.Equal(t, exitRaces, code, "the variable picks the IGUARD family")
	code, out, _ := runCmd("run", k, "-config", "exact")
	require.Equal(t, exitOK, code, "-config exact wins: %s", out)
	t.Setenv(race.EnvVar, "family=exact")
	code, _, _ = runCmd("run", k, "-config", "opt")
	require.Equal(t, exitRaces, code, "-config opt wins")
	code, out, _ = runCmd("suite", "-kernels", k, "-config", "opt", "-v")
	require.Equal(t, exitOK, code, "judged by the IGUARD family's verdicts: %s", out)
	require.Contains(t, out, "missing-device-fence")
}

// TestHaltOnErrorExitsWithRaces: under halt_on_error a detected race
// stops the launch, and run exits 66, the races' code, saying the output
// was not checked, in text and JSON; suite counts the configuration right
// and names its output "halted".
func TestHaltOnErrorExitsWithRaces(t *testing.T) {
	t.Setenv(race.EnvVar, "halt_on_error=1")
	args := []string{"run", "scor/matrix-mult", "-inject", "c-lock-block-cas"}
	code, out, _ := runCmd(args...)
	require.Equal(t, exitRaces, code, "%s", out)
	require.Contains(t, out, "output: not checked: the detector halted the launch at its first race")
	require.NotContains(t, out, "launch failed")
	code, out, _ = runCmd(append(args, "-json")...)
	require.Equal(t, exitRaces, code)
	var o runOut
	require.NoError(t, json.Unmarshal([]byte(out), &o))
	require.True(t, o.Halted)
	require.False(t, o.OutputOK)
	require.Empty(t, o.Error)
	require.Len(t, o.Reports, 1)
	code, out, _ = runCmd("suite", "-kernels", "scor/matrix-mult")
	require.Equal(t, exitOK, code, "%s", out)
	require.Contains(t, out, "scor/matrix-mult c-lock-block-cas        0     0  halted")
}
