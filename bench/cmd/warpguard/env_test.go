package main

import (
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
