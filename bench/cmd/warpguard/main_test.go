package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warpguard/warpguard/race"
)

func runCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"list"}, exitOK},
		{[]string{"run", "scor/1dconv"}, exitOK},
		{[]string{"run", "scor/1dconv", "-detector", "off"}, exitOK},
		{[]string{"run", "-inject", "all-block-atomics", "scor/1dconv"}, exitRaces},
		{[]string{"run", "scor/1dconv", "-inject", "all-block-atomics"}, exitRaces},
		{[]string{"run", "micro/race_interblock_blkatom"}, exitRaces},
		{[]string{"run", "micro/norace_interblock_atom"}, exitOK},
		{[]string{"run", "scor/1dconv", "-inject", "nosuch"}, exitError},
		{[]string{"run", "nosuch/kernel"}, exitError},
		{[]string{"run"}, exitError},
		{[]string{"run", "scor/1dconv", "-size", "huge"}, exitError},
		{[]string{"run", "scor/1dconv", "-detector", "maybe"}, exitError},
		{[]string{"run", "scor/1dconv", "-bogus"}, exitError},
		{[]string{"run", "scor/1dconv", "-executor", "goroutines"}, exitOK},
		{[]string{"run", "scor/1dconv", "-executor", "threads"}, exitError},
		{[]string{"suite", "-kernels", "scor/1dconv", "-executor", "goroutines", "-attempts", "1"}, exitOK},
		{[]string{"suite", "-kernels", "micro/norace_inter*"}, exitOK},
		{[]string{"suite", "-kernels", "nosuch*"}, exitError},
		{[]string{"suite", "-kernels", "["}, exitError},
		{[]string{"bench", "-kernels", "micro/norace_interblock_atom", "-configs", "off", "-runs", "1", "-warmup", "0", "-prime", "0"}, exitOK},
		{[]string{"frobnicate"}, exitError},
		{nil, exitError},
	}
	for _, tt := range tests {
		if code, out, errs := runCmd(tt.args...); code != tt.want {
			t.Errorf("warpguard %q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.want, out, errs)
		}
	}
}

// TestRunPrintsReport checks that run prints the output check and the
// report, with both sites.
func TestRunPrintsReport(t *testing.T) {
	_, out, _ := runCmd("run", "scor/reduction", "-inject", "ticket-block-fence")
	for _, want := range []string{"output: ok", "WARNING: SCOPED RACE (missing-device-fence)", "scor_reduction.go:", "1 races reported"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
}

func TestRunJSON(t *testing.T) {
	code, out, _ := runCmd("run", "scor/1dconv", "-inject", "all-block-atomics", "-json")
	var v struct {
		Kernel     string        `json:"kernel"`
		Inject     string        `json:"inject"`
		OutputOK   bool          `json:"output_ok"`
		FoundRaces []string      `json:"found_races"`
		Reports    []race.Report `json:"reports"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("exit %d, bad JSON %v:\n%s", code, err, out)
	}
	if v.Kernel != "scor/1dconv" || v.Inject != "all-block-atomics" || !v.OutputOK || len(v.Reports) == 0 ||
		v.FoundRaces[0] != "scoped-atomic" || !strings.HasSuffix(v.Reports[0].Current.Site.Function(), "(*conv1D).contribute") ||
		v.Reports[0].Current.Site.File() != "kernels/scor_conv1d.go" || v.Reports[0].Current.Site.Line() == 0 {
		t.Errorf("unexpected run JSON: %+v", v)
	}
}

// TestSuiteJSON checks that suite -json prints one object per
// configuration with every documented field.
func TestSuiteJSON(t *testing.T) {
	code, out, errs := runCmd("suite", "-json", "-kernels", "scor/1dconv")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	fields := []string{"kernel", "inject", "expect_races", "found_races", "false_positives", "missed", "output_ok", "ok", "off_ns", "on_ns", "race_reports"}
	var lines int
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		lines++
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v: %s", lines, err, sc.Text())
		}
		for _, f := range fields {
			if _, ok := m[f]; !ok {
				t.Errorf("line %d lacks %q: %s", lines, f, sc.Text())
			}
		}
		if m["ok"] != true || m["on_ns"].(float64) <= 0 {
			t.Errorf("line %d: %s", lines, sc.Text())
		}
	}
	if lines != 2 { // clean and one injection
		t.Errorf("%d JSON lines, want 2:\n%s", lines, out)
	}
	if !strings.Contains(errs, "[2/2] scor/1dconv all-block-atomics: ok") {
		t.Errorf("no progress on stderr:\n%s", errs)
	}
}

func TestSuiteTable(t *testing.T) {
	code, out, _ := runCmd("suite", "-kernels", "scor/rule-110")
	if code != exitOK || !strings.Contains(out, "KERNEL") || strings.Count(out, "scor/rule-110") != 3 {
		t.Errorf("exit %d, table:\n%s", code, out)
	}
}

func TestListNamesInjections(t *testing.T) {
	_, out, _ := runCmd("list")
	for _, want := range []string{"micro/race_interblock_blkfence_raw", "scor/uts", "-inject count-no-syncwarp", "cooperative"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q", want)
		}
	}
}
