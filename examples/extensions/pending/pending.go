// Package pending is a run-level metric of one's own, in one file:
// avg_pending_jobs, the time-weighted mean of the jobs waiting without
// GPUs over a run's scheduling rounds. Registered in a binary
// (app.WithMetric(pending.Metric)), it is a key of run's summary.json, a
// column of sweep's results.parquet, an aggregate of a sweep's
// summary.json (the largest over workloads), a table of the report and a
// metric that specs, plots and regress baselines may name.
package pending

import "github.com/polluxsim/polluxsim/experiments/outputs"

// Metric is the metric: app.WithMetric(pending.Metric).
var Metric = outputs.Metric{
	Name: "avg_pending_jobs", Unit: "jobs", Doc: "example: time-weighted mean of the jobs waiting without GPUs",
	Label: "average pending jobs", Report: true, Aggregate: outputs.Max,
	Value: func(d *outputs.RunData) (float64, bool) {
		var sum, span float64
		for _, r := range d.Rounds {
			sum += float64(r.Pending) * r.Duration
			span += r.Duration
		}
		if span == 0 {
			return 0, false
		}
		return sum / span, true
	},
}
