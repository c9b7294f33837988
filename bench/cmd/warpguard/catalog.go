package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/warpguard/warpguard/kernels"
)

// largePrefix starts the names of the large-grid group (kernels.Large),
// whose millions of threads take minutes under the detector: it runs only
// when a -kernels pattern names it.
const largePrefix = "large/"

// largeTimeout bounds each run of a large kernel in suite, where the
// default minute is too little for millions of threads under the detector
// on a loaded machine.
const largeTimeout = 10 * time.Minute

// kernelsFlagDoc is the -kernels flag's help line, the same in suite and
// bench.
const kernelsFlagDoc = "only the kernels whose names match one of these comma-separated path.Match patterns, " +
	"such as 'micro/*,lib/scan'; the large-grid group (2^20-2^22 threads) runs only when a pattern " +
	"starting with large/ names it, such as 'large/*'"

// selectKernels returns the kernels of base that match globs (all of them
// for ""), then those of the large-grid group that match a pattern of
// globs starting with "large/"; an error if none matches.
func selectKernels(base kernels.Catalog, globs string) (kernels.Catalog, error) {
	cat, err := base.Match(globs)
	if err != nil {
		return nil, err
	}
	if large := largeGlobs(globs); large != "" {
		more, err := kernels.Large().Match(large)
		if err != nil {
			return nil, err
		}
		cat = append(cat, more...)
	}
	if len(cat) == 0 {
		return nil, fmt.Errorf("no kernel matches %q (see warpguard list)", globs)
	}
	return cat, nil
}

// largeGlobs returns the patterns of globs that start with "large/",
// comma-separated.
func largeGlobs(globs string) string {
	var out []string
	for _, g := range strings.Split(globs, ",") {
		if g = strings.TrimSpace(g); strings.HasPrefix(g, largePrefix) {
			out = append(out, g)
		}
	}
	return strings.Join(out, ",")
}

// lookupKernel returns the kernel called name, of the catalog or the
// large-grid group.
func lookupKernel(name string) (*kernels.Entry, bool) {
	if k, ok := kernels.All().Lookup(name); ok {
		return k, true
	}
	return kernels.Large().Lookup(name)
}
