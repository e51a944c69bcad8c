package outputs

import (
	"testing"

	"github.com/polluxsim/polluxsim/sim"
)

// TestMetricsDeclaredOnce: results.parquet's documented metric columns are
// exactly the declared column metrics, in order, with their types,
// nullability and units; every metric has a getter, a unique name and a
// label.
func TestMetricsDeclaredOnce(t *testing.T) {
	doc := Schema("results.parquet")
	seen := map[string]bool{}
	stats := &RunStats{Summary: sim.Summary{AvgJCT: 7}, MaxRho: 3}
	for _, m := range Metrics() {
		if seen[m.Name] {
			t.Errorf("metric %s declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Get == nil || m.Label == "" {
			t.Errorf("metric %s: getter %v, label %q", m.Name, m.Get != nil, m.Label)
			continue
		}
		col, ok := doc.Column(m.Name)
		if ok != m.Column {
			t.Errorf("metric %s: a results.parquet column %v, declared %v", m.Name, ok, m.Column)
		}
		if ok && (col.Type != m.Type() || col.Nullable != (m.Timing || m.Null != nil) || col.Unit != m.Unit || col.Doc != m.Doc) {
			t.Errorf("metric %s: documented %+v", m.Name, col)
		}
	}
	if m, _ := LookupMetric("avg_jct_s"); m.Get(stats) != 7 {
		t.Error("avg_jct_s does not read the summary's average JCT")
	}
	if m, _ := LookupMetric("max_fairness_rho"); m.Get(stats) != 3 {
		t.Error("max_fairness_rho does not read MaxRho")
	}
}
