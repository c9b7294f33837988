package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/warpguard/warpguard/kernels"
	"github.com/warpguard/warpguard/race"
)

// list prints every kernel of the catalog, its flags and its injections.
func list(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return exitError
	}
	w := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	for _, k := range kernels.All() {
		fmt.Fprintf(w, "%s\t%s\t%s\n", k.Name, tags(k), k.Doc)
		for _, in := range k.Injections {
			fmt.Fprintf(w, "  -inject %s\t%s\t%s\n", in.Name, kindList(in.Expect), in.Doc)
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "warpguard:", err)
		return exitError
	}
	return exitOK
}

// tags summarizes a kernel's flags: racy (with its kinds), cooperative.
func tags(k *kernels.Kernel) string {
	var t []string
	if k.Racy {
		t = append(t, "racy: "+kindList(k.Expect))
	}
	if k.Cooperative {
		t = append(t, "cooperative")
	}
	return strings.Join(t, ", ")
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
