package sim

import (
	"math"
	"strings"
	"testing"
)

// checkFinite names the first infinite or NaN metric of a result, by its
// JSON key and job, and passes a finite one; the fairness ρ's message
// carries the run times it divides.
func TestCheckFinite(t *testing.T) {
	ok := func() *Result {
		return &Result{Jobs: []JobResult{{Name: "a", JCT: 30, ExclusiveJCT: 10, Fairness: 3}},
			Summary: Summary{AvgJCT: 30, PolicyStats: map[string]float64{"x": 1}}}
	}
	if err := ok().checkFinite(); err != nil {
		t.Fatalf("finite result refused: %v", err)
	}
	for _, c := range []struct {
		name  string
		spoil func(r *Result)
		want  string
	}{
		{"rho", func(r *Result) { r.Jobs[0].Fairness = math.Inf(1) }, "job a: fairness_rho is +Inf (JCT 30 s over an exclusive run of 10 s"},
		{"nan", func(r *Result) { r.Jobs[0].MeanBatch = math.NaN() }, "job a: mean_batch is NaN"},
		{"summary", func(r *Result) { r.Summary.AvgFairness = math.Inf(1) }, "summary: avg_fairness_rho is +Inf"},
		{"cost", func(r *Result) { r.Summary.CostByType = map[string]float64{"t4": 1, "a100": math.Inf(1)} }, "summary: cost_by_type.a100 is +Inf"},
		{"policy stat", func(r *Result) { r.Summary.PolicyStats["y"] = math.NaN() }, "summary: policy_stats.y is NaN"},
	} {
		r := ok()
		c.spoil(r)
		if err := r.checkFinite(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
