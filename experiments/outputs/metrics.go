package outputs

import (
	"github.com/polluxsim/polluxsim/sim"
)

// RunStats are the numbers of a finished run its metrics are computed
// from: the engine's summary and the largest finish-time fairness ratios.
type RunStats struct {
	Summary sim.Summary `json:"summary"`
	MaxRho  float64     `json:"max_rho"`
	// MaxRhoEqualShare is the largest equal-share ρ
	// (sim.JobResult.FairnessEqualShare).
	MaxRhoEqualShare float64 `json:"max_rho_equal_share"`
}

// Metric declares one number of a run, once: summaries, ratios, plots and
// baselines name it; results.parquet has a column for it (unless
// !Column); the report tabulates it when it has a Title. Adding a metric
// is adding one Metric to the list of Metrics.
type Metric struct {
	Name string
	// Unit and Doc document its results.parquet column (docs/outputs.md).
	Unit, Doc string
	// Count metrics are whole numbers (BIGINT columns); Timing ones are
	// wall-clock measurements (null when not measured).
	Count, Timing bool
	// Null, if set, says the run has no value (no job has a ρ): null in
	// the tables, left out of means.
	Null func(s *RunStats) bool
	// Column: a fixed column of results.parquet; metrics that exist only
	// for some runs (an elastic cluster's) are not.
	Column bool
	// Label names the metric for people ("average JCT"), without a unit:
	// the report's headings add the unit of the metric's Scale.
	Label string
	// Report makes the metric a table of the report.
	Report bool
	// Get computes it.
	Get func(s *RunStats) float64
}

// Type is the metric's column type.
func (m Metric) Type() string {
	if m.Count {
		return TypeInt
	}
	return TypeFloat
}

// noRho and noShareRho say that no job of the run has a ρ (an equal-share
// ρ): its ρ figures are null, not 0.
func noRho(s *RunStats) bool      { return s.Summary.NoFairness }
func noShareRho(s *RunStats) bool { return s.Summary.NoFairnessEqualShare }

// metrics are every run's metrics, in table order; per-application
// average JCTs (avg_jct_s_<application>) and GPU-hours per GPU type
// (gpu_hours_<type>) follow them by name (see results.RunResult.Metric).
var metrics = []Metric{
	{Name: "avg_jct_s", Unit: UnitSeconds, Doc: "mean JCT", Column: true, Report: true, Label: "average JCT", Get: func(s *RunStats) float64 { return s.Summary.AvgJCT }},
	{Name: "p50_jct_s", Unit: UnitSeconds, Doc: "median JCT", Column: true, Label: "median JCT", Get: func(s *RunStats) float64 { return s.Summary.P50JCT }},
	{Name: "p99_jct_s", Unit: UnitSeconds, Doc: "99th percentile JCT", Column: true, Report: true, Label: "99th percentile JCT", Get: func(s *RunStats) float64 { return s.Summary.P99JCT }},
	{Name: "max_jct_s", Unit: UnitSeconds, Doc: "largest JCT", Column: true, Label: "largest JCT", Get: func(s *RunStats) float64 { return s.Summary.MaxJCT }},
	{Name: "avg_queueing_s", Unit: UnitSeconds, Doc: "mean queueing delay", Column: true, Report: true, Label: "average queueing", Get: func(s *RunStats) float64 { return s.Summary.AvgQueueing }},
	{Name: "makespan_s", Unit: UnitSeconds, Doc: "last finish", Column: true, Report: true, Label: "makespan", Get: func(s *RunStats) float64 { return s.Summary.Makespan }},
	{Name: "restarts", Doc: "re-allocations of all jobs", Count: true, Column: true, Report: true, Label: "restarts", Get: func(s *RunStats) float64 { return float64(s.Summary.Restarts) }},
	{Name: "gpu_hours", Unit: "GPU·h", Doc: "GPU time held by jobs", Column: true, Label: "GPU time", Get: func(s *RunStats) float64 { return s.Summary.GPUHours }},
	{Name: "utilisation", Unit: UnitFraction, Doc: "gpu_hours over the cluster's GPU time from the first submit to the last finish", Column: true, Report: true, Label: "GPU utilisation", Get: func(s *RunStats) float64 { return s.Summary.Utilisation }},
	{Name: "avg_fairness_rho", Unit: UnitRatio, Doc: "mean finish-time fairness ρ over the jobs that have one; null when none has", Column: true, Null: noRho, Report: true, Label: "average finish-time fairness ρ", Get: func(s *RunStats) float64 { return s.Summary.AvgFairness }},
	{Name: "p99_fairness_rho", Unit: UnitRatio, Doc: "99th percentile ρ; null when no job has one", Column: true, Null: noRho, Label: "99th percentile finish-time fairness ρ", Get: func(s *RunStats) float64 { return s.Summary.P99Fairness }},
	{Name: "max_fairness_rho", Unit: UnitRatio, Doc: "largest ρ; null when no job has one", Column: true, Null: noRho, Report: true, Label: "largest finish-time fairness ρ", Get: func(s *RunStats) float64 { return s.MaxRho }},
	{Name: "frac_rho_above_1", Unit: UnitFraction, Doc: "share of the jobs with a ρ whose ρ > 1; null when none has one", Column: true, Null: noRho, Label: "share of jobs with ρ > 1", Get: func(s *RunStats) float64 { return s.Summary.FracUnfair }},
	{Name: "avg_fairness_rho_equal_share", Unit: UnitRatio, Doc: "mean equal-share ρ (the paper's definition); null when no job has one", Column: true, Null: noShareRho, Label: "average equal-share ρ", Get: func(s *RunStats) float64 { return s.Summary.AvgFairnessEqualShare }},
	{Name: "p99_fairness_rho_equal_share", Unit: UnitRatio, Doc: "99th percentile equal-share ρ; null when no job has one", Column: true, Null: noShareRho, Label: "99th percentile equal-share ρ", Get: func(s *RunStats) float64 { return s.Summary.P99FairnessEqualShare }},
	{Name: "max_fairness_rho_equal_share", Unit: UnitRatio, Doc: "largest equal-share ρ; null when no job has one", Column: true, Null: noShareRho, Label: "largest equal-share ρ", Get: func(s *RunStats) float64 { return s.MaxRhoEqualShare }},
	{Name: "frac_rho_equal_share_above_1", Unit: UnitFraction, Doc: "share of the jobs with an equal-share ρ whose ρ > 1; null when none has one", Column: true, Null: noShareRho, Label: "share of jobs with equal-share ρ > 1", Get: func(s *RunStats) float64 { return s.Summary.FracUnfairEqualShare }},
	{Name: "rounds", Doc: "scheduling rounds with active jobs", Count: true, Column: true, Label: "scheduling rounds", Get: func(s *RunStats) float64 { return float64(s.Summary.Rounds) }},
	{Name: "agent_fits", Doc: "θ_sys refits by the jobs' agents", Count: true, Column: true, Label: "agent refits", Get: func(s *RunStats) float64 { return float64(s.Summary.AgentFits) }},
	{Name: "policy_round_p50_s", Unit: UnitSeconds, Doc: "median wall time of a policy round; null with --no-timing", Timing: true, Column: true, Label: "median policy round wall time", Get: func(s *RunStats) float64 { return s.Summary.PolicyRoundP50 }},
	{Name: "policy_round_p99_s", Unit: UnitSeconds, Doc: "99th percentile wall time of a policy round; null with --no-timing", Timing: true, Column: true, Label: "99th percentile policy round wall time", Get: func(s *RunStats) float64 { return s.Summary.PolicyRoundP99 }},
	{Name: "policy_total_s", Unit: UnitSeconds, Doc: "total wall time in the policy; null with --no-timing", Timing: true, Column: true, Label: "policy wall time", Get: func(s *RunStats) float64 { return s.Summary.PolicyRoundTotal }},
	{Name: "wall_s", Unit: UnitSeconds, Doc: "wall time of the simulation; null with --no-timing", Timing: true, Column: true, Label: "simulation wall time", Get: func(s *RunStats) float64 { return s.Summary.Wall }},
	// An elastic cluster's (zero on a fixed one); ratios, tables and
	// plots may name them.
	{Name: "node_hours", Unit: "node·h", Doc: "node-hours billed", Label: "node time", Get: func(s *RunStats) float64 { return s.Summary.NodeHours }},
	{Name: "cost", Unit: "price units", Doc: "node_hours × the price per node-hour", Label: "cost", Get: func(s *RunStats) float64 { return s.Summary.Cost }},
}

// Metrics returns every declared metric, in table order.
func Metrics() []Metric { return append([]Metric(nil), metrics...) }

// LookupMetric returns the declared metric called name.
func LookupMetric(name string) (Metric, bool) {
	for _, m := range metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// metricFields are results.parquet's metric columns: one per Column
// metric, in order; counts are integers, timing metrics null when not
// measured, the others null where Null says so.
func metricFields() []Field[ResultRow] {
	var fs []Field[ResultRow]
	for _, m := range metrics {
		if !m.Column {
			continue
		}
		get := func(r ResultRow) float64 { return m.Get(r.Stats) }
		switch {
		case m.Count:
			fs = append(fs, I64(m.Name, m.Unit, m.Doc, func(r ResultRow) int64 { return int64(get(r)) }))
		case m.Timing:
			fs = append(fs, F64Null(m.Name, m.Unit, m.Doc, func(r ResultRow) (float64, bool) { return get(r), !r.NoTiming }))
		case m.Null != nil:
			fs = append(fs, F64Null(m.Name, m.Unit, m.Doc, func(r ResultRow) (float64, bool) { return get(r), !m.Null(r.Stats) }))
		default:
			fs = append(fs, F64(m.Name, m.Unit, m.Doc, get))
		}
	}
	return fs
}
