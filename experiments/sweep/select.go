package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
)

// maxWorkloadNumber bounds a workload number of --workloads-only (an
// experiment's workloads are far fewer).
const maxWorkloadNumber = 1 << 20

// ParseWorkloadNumbers reads --workloads-only: workload numbers and
// ranges separated by commas ("1,3", "2-5,8"), each at least 1. The
// result is sorted, without repeats; whether the experiment has those
// workloads is checked by Sweep.
func ParseWorkloadNumbers(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("--workloads-only %q: %q is not a workload number or a range N-M (want e.g. 1,3 or 2-5)", s, part)
		case a < 1 || b < a || b > maxWorkloadNumber:
			return nil, fmt.Errorf("--workloads-only %q: %q: want numbers from 1 (the first workload), a range's first not above its last", s, part)
		}
		for n := a; n <= b; n++ {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// checkWorkloadNumbers refuses workload numbers no run of exp has.
func checkWorkloadNumbers(exp *experiments.Experiment, only []int) error {
	has := map[int]bool{}
	top := 0
	for _, r := range exp.Runs() {
		has[r.Workload] = true
		top = max(top, r.Workload)
	}
	for _, n := range only {
		if !has[n] {
			return fmt.Errorf("--workloads-only: experiment %s has no workload %d (its workloads are 1..%d)", exp.Name, n, top)
		}
	}
	return nil
}

// selected reports whether run r at position i of Experiment.Runs is one
// this sweep runs: its shard's, and among opt.WorkloadsOnly when set.
func (opt SweepOptions) selected(i int, r experiments.Run) bool {
	return opt.Shard.owns(i) && (len(opt.WorkloadsOnly) == 0 || slices.Contains(opt.WorkloadsOnly, r.Workload))
}
