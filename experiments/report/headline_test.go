package report

import (
	"slices"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// TestStatRowClipsAndJudges: a utilisation interval past 100 % stops at
// 100 %; a reference inside the clipped interval is "inside", one beyond
// it "outside", and a row without an interval judges none.
func TestStatRowClipsAndJudges(t *testing.T) {
	util, _ := outputs.LookupMetric("utilisation")
	scale := util.ScaleFor(0.93)
	st := results.Stat{N: 8, Mean: 0.93, CI95: &[2]float64{0.836, 1.023}}
	row := statRowOf("cell", st, util, scale, []string{"a", "b", "c"}, map[string]float64{"a": 0.9, "b": 1.01})
	if row.Mean != "93.0" || row.CI != "[83.6, 100.0]" {
		t.Errorf("mean %s, CI %s; want 93.0, [83.6, 100.0]", row.Mean, row.CI)
	}
	want := []refCell{{"90.0", "inside"}, {"101.0", "outside"}, {}}
	if !slices.Equal(row.Refs, want) {
		t.Errorf("references %v, want %v", row.Refs, want)
	}
	st.CI95 = nil
	if row := statRowOf("cell", st, util, scale, []string{"a"}, map[string]float64{"a": 0.9}); row.CI != "" || row.Refs[0] != (refCell{"90.0", ""}) {
		t.Errorf("without an interval: CI %q, reference %v", row.CI, row.Refs[0])
	}
}

// TestHeadlineMetric: the report leads with the first paired ratio's
// metric (an earlier name read as the metric), else with the first
// metric of the report's tables; the headline's ratios are those of its
// metric, the others stay for the ratios table.
func TestHeadlineMetric(t *testing.T) {
	sum := &sweep.SweepSummary{
		Cells: []sweep.CellSummary{{Cell: "a", Label: "A", Metrics: map[string]results.Stat{
			"max_fairness_rho": {N: 1, Mean: 2}, "avg_jct_s": {N: 1, Mean: 3600}}}},
		Ratios: []sweep.RatioSummary{{Name: "rho", Metric: "max_rho"}, {Name: "jct", Metric: "avg_jct_s"}},
	}
	head, m, ok := headline(outputs.Metrics{}, sum)
	if !ok || m.Name != "max_fairness_rho" || head.Heading != "largest finish-time fairness ρ" || len(head.Ratios) != 1 || head.Ratios[0].Name != "rho" {
		t.Errorf("headline %s %q with ratios %v", m.Name, head.Heading, head.Ratios)
	}
	sum.Ratios = nil
	if head, m, _ := headline(outputs.Metrics{}, sum); m.Name != "avg_jct_s" || head.Heading != "average JCT (h)" {
		t.Errorf("without ratios: headline %s %q", m.Name, head.Heading)
	}
}

// TestNonDefault: a cell's provenance lists only the settings and options
// that differ from its policy's defaults, as key=value.
func TestNonDefault(t *testing.T) {
	s, err := runspec.DefaultSpec("pollux").WithOptions(exptest.Ext(), []string{"p=-10"})
	if err != nil {
		t.Fatal(err)
	}
	if got := nonDefault(exptest.Ext(), s); len(got) != 1 || got[0] != "p=-10" {
		t.Errorf("p = -10: %v", got)
	}
	s.Interval, s.Cluster = 120, "t4:2x4"
	if got, want := nonDefault(exptest.Ext(), s), []string{"cluster=t4:2x4", "interval_s=120", "p=-10"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if got := nonDefault(exptest.Ext(), runspec.DefaultSpec("tiresias")); len(got) != 0 {
		t.Errorf("defaults: %v", got)
	}
}
