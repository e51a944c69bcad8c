package app

import (
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// FuzzRunFlags parses arbitrary command lines of `polluxsim run` (words
// separated by spaces) and checks them as the command does before reading
// any file: no panic, and a command line that passes describes a run the
// engine accepts.
func FuzzRunFlags(f *testing.F) {
	for _, s := range []string{
		"", "--nodes 0", "--nodes 4 --gpus-per-node 8", "--interval 2m --realloc-delay 0", "--interval 0",
		"--p -10 --interference 0.5 --no-interference-avoidance", "--p NaN", "--interference 1",
		"--policy tiresias --step --interval 60", "--step --interval 0.5", "--population 5 --generations 3",
		"--seed 18446744073709551615", "--policy tiresias --policy-opt demote_gpu_hours=8", "--policy-opt nosuch=1", "--jobs 320 --workload-seed 3 --config realistic", "--workload w.csv --jobs 3",
		"--out", "--out= --quiet", "-h", "--nodes=100001", "--gpus-per-node=1024 --nodes=100000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		rf := &runFlags{ext: testExt, spec: runspec.DefaultSpec(intree.DefaultPolicy)}
		cmd := newRunCmdFor(rf)
		if err := cmd.ParseFlags(strings.Split(line, " ")); err != nil {
			return
		}
		if err := rf.check(cmd); err != nil {
			return
		}
		s := rf.spec
		if s.Nodes < 1 || s.GPUsPerNode < 1 || s.Nodes*s.GPUsPerNode > runspec.MaxNodes*runspec.MaxGPUsPerNode ||
			!(s.Interval > 0) || math.IsInf(s.Interval, 0) || !(s.RestartDelay >= 0) || math.IsInf(s.RestartDelay, 0) ||
			!(s.Interference >= 0 && s.Interference < 1) || rf.jobs < 1 {
			t.Fatalf("accepted %q as %+v", line, s)
		}
		if pv, ok := s.Options.Value("p"); ok {
			if x, isNum := pv.(float64); !isNum || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("accepted %q with p = %v", line, pv)
			}
		}
		if _, err := runspec.NewPolicy(testExt, s); err != nil {
			t.Fatalf("accepted %q but: %v", line, err)
		}
	})
}
