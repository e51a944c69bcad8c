package outputs

import (
	"github.com/polluxsim/polluxsim/sim"
)

// The deadline metrics (docs/deadlines.md) are Optional, Present and
// Conditional: a run without deadlines and without declined jobs has none
// of them (no key in summary.json, no column in a results.parquet of
// such runs, no aggregate in a sweep's summary.json), so its outputs are
// what they were before deadlines existed; a run with them has each one
// that has a value, zero included. The lateness percentiles need a late
// job: without one they are absent rather than a made-up 0 (late_jobs
// says 0).

// deadlineRun reports whether the run's jobs have a deadline or were
// declined: the runs the deadline metrics describe.
func deadlineRun(d *RunData) bool {
	for i := range d.Jobs {
		if j := &d.Jobs[i]; j.Deadline > 0 || j.Declined != "" {
			return true
		}
	}
	return false
}

// lateness is the lateness, in seconds, of the run's late jobs.
func lateness(d *RunData) []float64 {
	var v []float64
	for i := range d.Jobs {
		if l, ok := d.Jobs[i].Late(); ok && l > 0 {
			v = append(v, l)
		}
	}
	return v
}

func latenessPercentile(q float64) func(d *RunData) (float64, bool) {
	return func(d *RunData) (float64, bool) {
		v := lateness(d)
		return sim.Percentile(v, q), len(v) > 0
	}
}

// deadlineMetrics are the built-in deadline metrics, in table order.
var deadlineMetrics = []Metric{
	{Name: "deadline_satisfactory_ratio", Unit: UnitFraction, Doc: "jobs done by their deadline over jobs submitted with one (declined jobs count as missed; ElasticFlow's metric); only in runs with deadlines", Optional: true, Present: true, Conditional: true, MayBeNull: true, HigherIsBetter: true, Label: "deadline satisfactory ratio",
		Value: func(d *RunData) (float64, bool) { return sim.TallyDeadlines(d.Jobs).Ratio() }},
	{Name: "jobs_with_deadline", Doc: "jobs submitted with a deadline; only in runs with deadlines or declined jobs", Count: true, Optional: true, Present: true, Conditional: true, Label: "jobs with a deadline",
		Value: func(d *RunData) (float64, bool) { return float64(sim.TallyDeadlines(d.Jobs).With), deadlineRun(d) }},
	{Name: "jobs_declined", Doc: "jobs the policy declined at submission (admission control); only in runs with deadlines or declined jobs", Count: true, Optional: true, Present: true, Conditional: true, Label: "jobs declined",
		Value: func(d *RunData) (float64, bool) {
			return float64(sim.TallyDeadlines(d.Jobs).DeclinedAll), deadlineRun(d)
		}},
	{Name: "late_jobs", Doc: "jobs that ran and finished after their deadline; only in runs with deadlines or declined jobs", Count: true, Optional: true, Present: true, Conditional: true, Label: "late jobs",
		Value: func(d *RunData) (float64, bool) { return float64(sim.TallyDeadlines(d.Jobs).Late), deadlineRun(d) }},
	{Name: "p50_lateness_s", Unit: UnitSeconds, Doc: "median lateness (finish − deadline) of the late jobs; only in runs with a late job", Optional: true, Present: true, Conditional: true, Label: "median lateness of late jobs", Value: latenessPercentile(50)},
	{Name: "p95_lateness_s", Unit: UnitSeconds, Doc: "95th percentile lateness of the late jobs; only in runs with a late job", Optional: true, Present: true, Conditional: true, Label: "95th percentile lateness of late jobs", Value: latenessPercentile(95)},
	{Name: "avg_jct_best_effort_s", Unit: UnitSeconds, Doc: "mean JCT of the best-effort jobs (no deadline) that ran; only in runs with deadlines and such a job", Optional: true, Present: true, Conditional: true, Label: "average JCT of best-effort jobs",
		Value: func(d *RunData) (float64, bool) {
			if sim.TallyDeadlines(d.Jobs).With == 0 {
				return 0, false
			}
			s, n := 0.0, 0
			for i := range d.Jobs {
				if j := &d.Jobs[i]; j.Deadline <= 0 && j.Declined == "" {
					s += j.JCT
					n++
				}
			}
			if n == 0 {
				return 0, false
			}
			return s / float64(n), true
		}},
}
