package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// listWidth is the column list wraps its text at.
const listWidth = 120

// list prints every kernel of the catalog and of the large-grid group,
// its flags and its injections.
func list(args []string, stdout, stderr io.Writer) int {
	c := newCommand("list", "", "List prints every kernel of the catalog: its name, whether it is racy "+
		"or cooperative, what it computes and how it synchronizes, and each race that can be switched "+
		"into it with run's or suite's -inject, with the kinds of race the detector must report for it: "+
		"the default (exact) family's verdict, then the IGUARD family's where it differs (\"iguard: ...\"; "+
		"package race says why). The large-grid group (large/...) comes last: suite and bench run it only "+
		"when -kernels names it.", stderr)
	if code, ok := c.parse(args, stdout); !ok {
		return code
	}
	if err := c.noArgs(); err != nil {
		return c.usageError(err)
	}
	w := bufio.NewWriter(stdout)
	for _, k := range append(kernels.All(), kernels.Large()...) {
		writeKernel(w, k)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	return exitOK
}

// writeKernel writes k's entry: its name and tags, its doc, and each
// injection, wrapped at listWidth.
func writeKernel(w io.Writer, k *kernels.Entry) {
	head := k.Name
	if t := tags(k); t != "" {
		head += "  (" + t + ")"
	}
	fmt.Fprintf(w, "%s\n    %s\n", head, wrap(k.Doc, listWidth, "    "))
	for _, in := range k.Injections {
		exact := in.Expect
		if in.Precise != nil {
			exact = in.Precise.Expect
		}
		head := fmt.Sprintf("  -inject %s  %s", in.Name, kindList(exact))
		if ig := "(iguard: " + kindList(in.Expect) + ")"; !slices.Equal(exact, in.Expect) {
			if len(head)+2+len(ig) <= listWidth {
				head += "  " + ig
			} else {
				head += "\n        " + ig
			}
		}
		fmt.Fprintf(w, "%s\n        %s\n", head, wrap(in.Doc, listWidth, "        "))
	}
}

// tags summarizes a kernel's flags: racy (with its kinds) under the
// default family, and under the IGUARD family where that differs;
// cooperative.
func tags(k *kernels.Entry) string {
	var t []string
	exact := k.Expect
	if k.Precise != nil {
		exact = k.Precise.Expect
	}
	if len(exact) > 0 {
		t = append(t, "racy: "+kindList(exact))
	}
	if !slices.Equal(exact, k.Expect) {
		t = append(t, "iguard: "+verdict(k.Expect))
	}
	if k.Cooperative {
		t = append(t, "cooperative")
	}
	return strings.Join(t, ", ")
}

// verdict is "racy: KINDS", or "clean" for none.
func verdict(ks []race.Kind) string {
	if len(ks) == 0 {
		return "clean"
	}
	return "racy: " + kindList(ks)
}

// kindStrings returns the kinds' names.
func kindStrings(ks []race.Kind) []string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = k.String()
	}
	return s
}

// kindList joins race kinds with "|", or returns "-" for none.
func kindList(ks []race.Kind) string {
	if len(ks) == 0 {
		return "-"
	}
	return strings.Join(kindStrings(ks), "|")
}
