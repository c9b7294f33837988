package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/warpguard/warpguard/bench"
)

// tableWidth is the width suite's lines keep to.
const tableWidth = 120

// A suiteTable writes the suite's rows as they finish, in columns sized
// up front for every configuration to come: the kernel and injection, the
// false positives and missed races, the output check, the time with the
// detector off and on and their ratio, and the verdict. With -v a row is
// followed by the kinds of race expected and reported, indented, and a
// failing row by what failed.
type suiteTable struct {
	w       io.Writer
	verbose bool
	nameW   int // the configuration column's width
	headed  bool
}

// newSuiteTable returns the table for cfgs' results on w.
func newSuiteTable(w io.Writer, cfgs []bench.Case, verbose bool) *suiteTable {
	t := &suiteTable{w: w, verbose: verbose, nameW: len("CONFIGURATION")}
	for _, c := range cfgs {
		t.nameW = max(t.nameW, len(configName(c.Kernel.Name, c.Inject)))
	}
	return t
}

// configName names a configuration in the table: the kernel, and the
// injection after a space if there is one.
func configName(kernel, inject string) string {
	return strings.TrimSpace(kernel + " " + inject)
}

// The fixed columns after the kinds: their headers and widths (negative:
// left-aligned).
var (
	fixedHeads  = []string{"FP", "MISS", "OUTPUT", "OFF", "ON", "RATIO", "OK"}
	fixedWidths = []int{2, 4, -7, 7, 7, 6, -4}
)

// cells formats one row: the configuration, then the fixed columns.
func (t *suiteTable) cells(name string, fixed []string) string {
	cols := []string{pad(name, -t.nameW)}
	for i, f := range fixed {
		cols = append(cols, pad(f, fixedWidths[i]))
	}
	return strings.TrimRight(strings.Join(cols, "  "), " ")
}

// pad pads s with spaces to width columns, counting runes: on the right
// for a negative width, else on the left.
func pad(s string, width int) string {
	n := utf8.RuneCountInString(s)
	switch {
	case width < 0 && n < -width:
		return s + strings.Repeat(" ", -width-n)
	case width > n:
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

// write writes r's row, after the header for the first.
func (t *suiteTable) write(r *bench.Result) error {
	if !t.headed {
		t.headed = true
		if _, err := fmt.Fprintln(t.w, t.cells("CONFIGURATION", fixedHeads)); err != nil {
			return err
		}
	}
	row := t.cells(configName(r.Kernel, r.Inject), []string{
		fmt.Sprint(r.FalsePositives), fmt.Sprint(r.Missed()), outputWord(r),
		bench.FormatDuration(r.Off.Elapsed), bench.FormatDuration(r.On.Elapsed), fmt.Sprintf("%.1fx", r.Overhead()), okWord(r)})
	if t.verbose {
		row += "\n    " + wrap(fmt.Sprintf("expect %s; reported %s", kindList(r.Expect), kindList(r.Found())), tableWidth, "    ")
	}
	if !r.OK() {
		row += "\n    " + wrap(r.Problem(), tableWidth, "    ")
	}
	_, err := fmt.Fprintln(t.w, row)
	return err
}
