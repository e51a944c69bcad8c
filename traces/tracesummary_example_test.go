package traces_test

import (
	"fmt"
	"os"

	"github.com/polluxsim/polluxsim/traces"
)

// Summarise an embedded ITP cluster: nothing to download.
func ExampleSummarizeTrace() {
	t, err := traces.MustTraceFormats(traces.BuiltinTraceFormats()...).Read("itp:cluster02")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := traces.SummarizeTrace(t, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	s.WriteText(os.Stdout)
	// Output:
	// trace              itp:cluster02 (itp)
	// jobs               5,778 (rows read 5,778, left out 0)
	// span               59.7 days of submissions
	// GPUs per job       max 64; 1: 4,937 (85.4%), 2: 102 (1.8%), 3-4: 301 (5.2%), 5-8: 352 (6.1%), 9-16: 36 (0.6%), 17-32: 36 (0.6%), 33-64: 14 (0.2%)
	// GPU-hours          123,748
	// median run time    6182 s
	// avg GPUs busy      86.3 (GPU-hours / span: if every job ran on arrival)
	// paper load         33.5 GPUs match the paper's load per GPU by GPU time (160 jobs of 8.25 GPU-h per 64 GPUs per 8 h); 12.9 by job count
	// suggested cluster  64 GPUs = 16 nodes x 4 (the paper-equivalent size in whole nodes, at least the largest job)
}
