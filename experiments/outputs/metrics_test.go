package outputs

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/sim"
)

// TestMetricsDeclaredOnce: results.parquet's documented metric columns are
// exactly the declared column metrics, in order, with their types,
// nullability and units; every metric has a value, a unique name and a
// label.
func TestMetricsDeclaredOnce(t *testing.T) {
	doc := Schema("results.parquet")
	seen := map[string]bool{}
	data := &RunData{Summary: &sim.Summary{AvgJCT: 7}, Jobs: []sim.JobResult{{ExclusiveJCT: 1, Fairness: 3}, {ExclusiveJCT: 1, Fairness: 2}, {Fairness: 9}}}
	for _, m := range BuiltinMetrics().All() {
		if seen[m.Name] {
			t.Errorf("metric %s declared twice", m.Name)
		}
		seen[m.Name] = true
		if m.Value == nil || m.Label == "" {
			t.Errorf("metric %s: value %v, label %q", m.Name, m.Value != nil, m.Label)
			continue
		}
		col, ok := doc.Column(m.Name)
		if ok != (!m.Optional || m.Conditional) {
			t.Errorf("metric %s: a results.parquet column %v, optional %v, conditional %v", m.Name, ok, m.Optional, m.Conditional)
		}
		if ok && (col.Type != m.Type() || col.Nullable != m.Nullable() || col.Unit != m.Unit || col.Doc != m.Doc) {
			t.Errorf("metric %s: documented %+v", m.Name, col)
		}
	}
	if m, _ := LookupMetric("avg_jct_s"); value(m, data) != 7 {
		t.Error("avg_jct_s does not read the summary's average JCT")
	}
	// The largest ρ of the jobs that have one (the third has none).
	if m, _ := LookupMetric("max_fairness_rho"); value(m, data) != 3 {
		t.Errorf("max_fairness_rho = %v, want 3", value(m, data))
	}
}

func value(m Metric, d *RunData) float64 { v, _ := m.Of(d); return v }

// p90JCT is a metric as a user outside the tree declares it: one value,
// computed from the run's jobs.
var p90JCT = Metric{Name: "p90_jct_s", Unit: UnitSeconds, Doc: "90th percentile JCT", Label: "90th percentile JCT",
	Value: func(d *RunData) (float64, bool) {
		jcts := make([]float64, len(d.Jobs))
		for i, j := range d.Jobs {
			jcts[i] = j.JCT
		}
		return sim.Percentile(jcts, 90), len(jcts) > 0
	}}

// summaryKeys are the keys of a run's summary.json written with ms.
func summaryKeys(t *testing.T, res *sim.Result, ms Metrics) map[string]any {
	t.Helper()
	spec := runspec.DefaultSpec("tiresias")
	data, err := json.Marshal(NewRunSummary(res, spec, RunMeta{Version: "v", InputsHash: "h"}, OutputOptions{NoTiming: true, Metrics: ms}))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(data, &keys); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSummaryCarriesResultsMetrics: summary.json and results.parquet carry
// the same metrics, both derived from one set of declarations: every
// column metric of results.parquet is a key of summary.json, with the
// value the column has (null where it is null, 0 for a wall time not
// measured), and an Optional metric is in summary.json only when the run
// has it (a non-zero value, or any when Present), a column only when
// Conditional (the figures of runs with failures), with the value
// summary.json has. A metric added to the set is in both.
func TestSummaryCarriesResultsMetrics(t *testing.T) {
	res := &sim.Result{Summary: sim.Summary{Policy: "tiresias", Jobs: 2, AvgJCT: 10, NoFairnessEqualShare: true, Wall: 3},
		Jobs: []sim.JobResult{{JCT: 8, ExclusiveJCT: 4, Fairness: 2}, {JCT: 12, ExclusiveJCT: 4, Fairness: 3}}}
	res.Config.Interval = 60
	faulty := *res
	faulty.Summary.Faults = &sim.FaultSummary{Interruptions: 0, LostGPUHours: 1.5, Availability: 0.9, AvgETTR: 0.8}
	for _, ms := range []Metrics{BuiltinMetrics(), BuiltinMetrics().With(p90JCT)} {
		for _, res := range []*sim.Result{res, &faulty} {
			keys := summaryKeys(t, res, ms)
			table := ResultsTableFor(ms).Schema()
			data := NewRunData(res, true)
			for _, m := range ms.All() {
				got, inSummary := keys[m.Name]
				_, isColumn := table.Column(m.Name)
				if isColumn != (!m.Optional || m.Conditional) {
					t.Errorf("%s: column %v, optional %v, conditional %v", m.Name, isColumn, m.Optional, m.Conditional)
				}
				if m.Optional {
					v, ok := m.Of(data)
					if inSummary != (ok && (v != 0 || m.Present)) {
						t.Errorf("%s: in summary.json %v, value %v %v", m.Name, inSummary, v, ok)
					}
					if m.Conditional && inSummary && got.(float64) != v {
						t.Errorf("%s: summary.json %v, column %v", m.Name, got, v)
					}
					continue
				}
				if !inSummary {
					t.Errorf("%s: a results.parquet column missing from summary.json", m.Name)
					continue
				}
				v, ok := m.Of(data)
				switch {
				case m.Timing:
					ok, v = true, 0 // measured as 0 in summary.json with --no-timing
				}
				if !ok && got != nil || ok && (got == nil || got.(float64) != v) {
					t.Errorf("%s: summary.json %v, column %v (%v)", m.Name, got, v, ok)
				}
			}
			if _, ok := keys["p90_jct_s"]; ok != (len(ms.All()) > len(BuiltinMetrics().All())) {
				t.Errorf("p90_jct_s in summary.json: %v", ok)
			}
			if _, ok := keys["interruptions"]; ok != (res.Summary.Faults != nil) {
				t.Errorf("interruptions (0) in summary.json: %v, want it exactly for a run with failures", ok)
			}
		}
	}
	// The added metric's value: the 90th percentile of 8 and 12.
	if v := summaryKeys(t, res, BuiltinMetrics().With(p90JCT))["p90_jct_s"]; math.Abs(v.(float64)-11.6) > 1e-12 {
		t.Errorf("p90_jct_s = %v", v)
	}
}

// TestMetricsSet: With appends, refusing a name twice; Merge joins sets;
// the zero set is the built-ins.
func TestMetricsSet(t *testing.T) {
	var zero Metrics
	if len(zero.All()) != len(BuiltinMetrics().All()) {
		t.Fatal("the zero Metrics is not the built-in set")
	}
	ms := zero.With(p90JCT)
	if _, ok := ms.Lookup("p90_jct_s"); !ok {
		t.Fatal("With lost the metric")
	}
	if _, ok := zero.Lookup("p90_jct_s"); ok {
		t.Fatal("With changed the set it was called on")
	}
	if _, err := ms.Merge(ms); err == nil {
		t.Error("a metric declared twice was merged")
	}
	own, err := NewMetrics(p90JCT)
	if err != nil || len(own.All()) != 1 {
		t.Fatalf("NewMetrics: %v %v", own.All(), err)
	}
	both, err := BuiltinMetrics().Merge(own)
	if err != nil || !slices.ContainsFunc(both.Columns(), func(m Metric) bool { return m.Name == "p90_jct_s" }) {
		t.Errorf("Merge: %v", err)
	}
	if none, err := NewMetrics(); err != nil || len(none.All()) != 0 {
		t.Errorf("NewMetrics() = %d metrics, %v; want none", len(none.All()), err)
	}
	if _, err := own.Merge(Metrics{}); err != nil {
		t.Errorf("merging the built-ins (the zero set) into a set of one's own: %v", err)
	}
	if _, err := NewMetrics(Metric{Name: "x"}); err == nil {
		t.Error("a metric without a value was accepted")
	}
}

// TestAggregation: the aggregations of a sweep over workloads.
func TestAggregation(t *testing.T) {
	vs := []float64{3, 1, 2, 10}
	for a, want := range map[Aggregation]float64{Mean: 4, Median: 2.5, Max: 10, Min: 1, Sum: 16} {
		if got := a.Of(vs); got != want {
			t.Errorf("%v = %v, want %v", a, got, want)
		}
	}
}

// TestFamilies: a family member is found by name, reads as the metric it
// splits, and its value is the closed form over the run's jobs (the mean
// JCT of the application's jobs that ran) or the engine's per-type
// figure; a set
// without the split metric has no family.
func TestFamilies(t *testing.T) {
	d := &RunData{Summary: &sim.Summary{GPUHoursByType: map[string]float64{"a100": 3, "t4": 5}}, Jobs: []sim.JobResult{
		{App: "bert", JCT: 10}, {App: "cifar10", JCT: 4}, {App: "bert", JCT: 30}, {App: "bert", JCT: 2},
		{App: "bert", Declined: "late"}, {App: "ncf", Declined: "late"}}} // declined jobs never ran: no JCT
	ms := BuiltinMetrics()
	if got := ms.NamesIn([]*RunData{d}); strings.Join(got[len(got)-4:], " ") != "avg_jct_s_bert avg_jct_s_cifar10 gpu_hours_a100 gpu_hours_t4" {
		t.Errorf("NamesIn ends %q", got[len(got)-4:])
	}
	for name, want := range map[string]float64{"avg_jct_s_bert": 14, "avg_jct_s_cifar10": 4, "gpu_hours_t4": 5} {
		m, ok := ms.Lookup(name)
		if v, has := m.Value(d); !ok || !has || v != want || !m.Optional {
			t.Errorf("%s: %v %v %v (optional %v), want %v", name, ok, v, has, m.Optional, want)
		}
	}
	if m, _ := ms.Lookup("avg_jct_s_resnet"); m.Label != "average JCT of resnet" {
		t.Errorf("label %q", m.Label)
	} else if _, has := m.Value(d); has {
		t.Error("an application without jobs has a value")
	}
	for _, name := range []string{"avg_jct_s_", "gpu_hours_"} {
		if _, ok := ms.Lookup(name); ok {
			t.Errorf("%q (no key) found", name)
		}
	}
	own, _ := NewMetrics(Metric{Name: "x", Value: func(*RunData) (float64, bool) { return 1, true }})
	if _, ok := own.Lookup("avg_jct_s_bert"); ok || len(own.Families()) != 0 {
		t.Error("a set without avg_jct_s has its family")
	}
}
