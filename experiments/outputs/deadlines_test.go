package outputs

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/sim"
)

// deadlineJobs: a met at 100 (deadline 150), b late by 50, c late by 250,
// d declined, e best-effort with JCT 40, f best-effort with JCT 80.
func deadlineJobs() []sim.JobResult {
	nan := math.NaN()
	return []sim.JobResult{
		{Name: "a", Submit: 0, Finish: 100, JCT: 100, Deadline: 150},
		{Name: "b", Submit: 0, Finish: 200, JCT: 200, Deadline: 150},
		{Name: "c", Submit: 10, Finish: 400, JCT: 390, Deadline: 150},
		{Name: "d", Submit: 20, FirstStart: nan, Queueing: nan, Finish: 20, Deadline: 60, Declined: "no"},
		{Name: "e", Submit: 0, Finish: 40, JCT: 40},
		{Name: "f", Submit: 0, Finish: 80, JCT: 80},
	}
}

// The deadline metrics in closed form, and their absence from a run
// without deadlines.
func TestDeadlineMetrics(t *testing.T) {
	d := &RunData{Summary: &sim.Summary{}, Jobs: deadlineJobs()}
	want := map[string]float64{
		"deadline_satisfactory_ratio": 1.0 / 4, // a of a, b, c, d
		"jobs_with_deadline":          4,
		"jobs_declined":               1,
		"late_jobs":                   2,
		"p50_lateness_s":              150, // of 50 and 250
		"p95_lateness_s":              50 + 0.95*200,
		"avg_jct_best_effort_s":       60,
	}
	for name, w := range want {
		m, ok := LookupMetric(name)
		if !ok {
			t.Fatalf("no metric %s", name)
		}
		if v, ok := m.Of(d); !ok || math.Abs(v-w) > 1e-9 {
			t.Errorf("%s = %v (ok %v), want %v", name, v, ok, w)
		}
		if !m.Optional || !m.Present {
			t.Errorf("%s is not Optional and Present", name)
		}
	}
	// Without deadlines, declines and late jobs, none has a value.
	plain := &RunData{Summary: &sim.Summary{}, Jobs: []sim.JobResult{{Name: "e", JCT: 40}}}
	for name := range want {
		m, _ := LookupMetric(name)
		if v, ok := m.Of(plain); ok {
			t.Errorf("%s = %v in a run without deadlines", name, v)
		}
	}
	// All on time: counts of zero are values; lateness has none.
	onTime := &RunData{Summary: &sim.Summary{}, Jobs: deadlineJobs()[:1]}
	for name, has := range map[string]bool{"late_jobs": true, "jobs_declined": true, "deadline_satisfactory_ratio": true, "p50_lateness_s": false, "avg_jct_best_effort_s": false} {
		m, _ := LookupMetric(name)
		if _, ok := m.Of(onTime); ok != has {
			t.Errorf("%s: has a value %v, want %v", name, ok, has)
		}
	}
}

// summary.json has the deadline keys exactly when the run has deadlines,
// zero counts included; never a NaN.
func TestDeadlineMetricsInSummary(t *testing.T) {
	res := &sim.Result{Jobs: deadlineJobs()[:1]}
	keys := summaryKeys(t, res, BuiltinMetrics())
	for _, name := range []string{"deadline_satisfactory_ratio", "jobs_with_deadline", "jobs_declined", "late_jobs"} {
		if _, ok := keys[name]; !ok {
			t.Errorf("summary.json lacks %s in a run with deadlines", name)
		}
	}
	if v := keys["jobs_declined"]; v != float64(0) {
		t.Errorf("jobs_declined = %v, want 0", v)
	}
	for _, name := range []string{"p50_lateness_s", "p95_lateness_s", "avg_jct_best_effort_s"} {
		if _, ok := keys[name]; ok {
			t.Errorf("summary.json has %s without a late or best-effort job", name)
		}
	}
	plain := summaryKeys(t, &sim.Result{Jobs: deadlineJobs()[4:]}, BuiltinMetrics())
	for _, m := range deadlineMetrics {
		if _, ok := plain[m.Name]; ok {
			t.Errorf("summary.json of a run without deadlines has %s", m.Name)
		}
	}
}

// jobs.parquet of a run with deadlines has the conditional columns, a
// declined job's first start and queueing null and its state and reason;
// without deadlines or declines it has none of them.
func TestJobsTableDeadlineColumns(t *testing.T) {
	dir := t.TempDir()
	key := &RunKey{ID: "x", Policy: "edf"}
	write := func(name string, jobs []sim.JobResult) string {
		p := filepath.Join(dir, name)
		if err := WriteTable(p, JobsTable, func(i int) JobRow { return JobRow{key, &jobs[i]} }, len(jobs), nil, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jobs := deadlineJobs()
	jobs[3].FirstStart, jobs[3].Queueing = 0, 0 // as the engine leaves a declined job
	cols, err := ReadTableColumns(write("d.parquet", jobs), "first_start_s", "queueing_s", "deadline_s", "state", "declined_reason")
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(cols.Nums["first_start_s"][3]) || !math.IsNaN(cols.Nums["queueing_s"][3]) || cols.Nums["first_start_s"][0] != 0 {
		t.Errorf("first starts %v, queueing %v: want null for the declined job only", cols.Nums["first_start_s"], cols.Nums["queueing_s"])
	}
	if got := cols.Strs["state"]; got[3] != JobStateDeclined || got[0] != JobStateDone || cols.Strs["declined_reason"][3] != "no" {
		t.Errorf("states %v, reasons %v", got, cols.Strs["declined_reason"])
	}
	if d := cols.Nums["deadline_s"]; d[0] != 150 || !math.IsNaN(d[4]) {
		t.Errorf("deadlines %v: want 150 for a, null for best-effort e", d)
	}
	plain := write("p.parquet", jobs[4:])
	for _, c := range []string{"deadline_s", "state", "declined_reason"} {
		if _, err := ReadTableColumns(plain, c); err == nil {
			t.Errorf("a table without deadlines has column %s", c)
		}
	}
}
