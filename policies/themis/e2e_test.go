package themis_test

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// maxRho is the largest finish-time fairness ρ of a run's jobs.
func maxRho(res *sim.Result) float64 {
	m := 0.0
	for _, j := range res.Jobs {
		if j.ExclusiveJCT > 0 {
			m = math.Max(m, j.Fairness)
		}
	}
	return m
}

// A whole run of reference workload 1 (16 × 4 T4, measured tables):
// every job finishes, the average JCT stays within 1 % of the one in
// docs/themis.md, and the worst ρ is below gavel-ftf's and tiresias' on
// the same jobs.
func TestReferenceWorkload(t *testing.T) {
	w, _, err := traces.ReadPaper("paper:1", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string) *sim.Result {
		spec := runspec.DefaultSpec(name)
		pol, err := runspec.NewPolicy(intree.Extensions(), spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(spec.SimConfig(), profiles.Default(), w, pol)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Summary.Jobs != len(w.Jobs) {
			t.Errorf("%s: %d jobs finished of %d", name, res.Summary.Jobs, len(w.Jobs))
		}
		return res
	}
	th := run("themis")
	if want := 2536.0; math.Abs(th.Summary.AvgJCT/want-1) > 0.01 {
		t.Errorf("themis: avg JCT %.0f s, want %.0f ± 1 %%", th.Summary.AvgJCT, want)
	}
	for _, other := range []string{"gavel-ftf", "tiresias"} {
		if a, b := maxRho(th), maxRho(run(other)); !(a < b) {
			t.Errorf("themis' largest ρ %.2f is not below %s's %.2f", a, other, b)
		}
	}
}
