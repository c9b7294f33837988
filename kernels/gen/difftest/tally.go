package difftest

// A Tally sums the outcomes of one configuration over many kernels.
type Tally struct {
	Config string `json:"config"` // the detector configuration's name
	// Execution names how the kernels ran (see Execution); empty means
	// deterministic.
	Execution string `json:"execution,omitempty"`
	Kernels   int    `json:"kernels"`      // outcomes added
	Racy      int    `json:"racy_kernels"` // kernels the oracle finds racing
	// Granules counts racing granules by the oracle's verdict.
	Granules int `json:"racy_granules"`
	// FalsePositives and FalseNegatives count granules; FPKernels and
	// FNKernels the kernels with at least one.
	FalsePositives int `json:"false_positive_granules"`
	FalseNegatives int `json:"false_negative_granules"`
	FPKernels      int `json:"false_positive_kernels"`
	FNKernels      int `json:"false_negative_kernels"`
}

// Add counts outcome o.
func (t *Tally) Add(o *Outcome) {
	t.Kernels++
	t.Granules += len(o.Races)
	t.FalsePositives += len(o.FalsePositives)
	t.FalseNegatives += len(o.FalseNegatives)
	t.Racy += b2i(len(o.Races) > 0)
	t.FPKernels += b2i(len(o.FalsePositives) > 0)
	t.FNKernels += b2i(len(o.FalseNegatives) > 0)
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
