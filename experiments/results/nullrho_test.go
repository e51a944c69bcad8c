package results

import (
	"testing"

	"github.com/polluxsim/polluxsim/sim"
)

// A run in which no job has a ρ has no ρ metrics (left out of means and
// null in results.parquet), not 0; its other metrics stay.
func TestNoRhoMetrics(t *testing.T) {
	r := &RunResult{Summary: sim.Summary{AvgJCT: 10, NoFairness: true}}
	for _, m := range []string{"avg_fairness_rho", "p99_fairness_rho", "max_fairness_rho", "frac_rho_above_1"} {
		if v, ok := r.Metric(m); ok {
			t.Errorf("%s = %v, want none", m, v)
		}
	}
	if _, ok := r.Metric("avg_fairness_rho_equal_share"); !ok {
		t.Error("the equal-share ρ was dropped with the other")
	}
	if v, ok := r.Metric("avg_jct_s"); !ok || v != 10 {
		t.Errorf("avg_jct_s = %v, %v", v, ok)
	}
}
