// Package holdtable is an output table of one's own, in one file:
// holds.parquet, one row per application of a run with its jobs, the
// GPU-hours they held and the share of the run's GPU-hours that is.
// Registered in a binary (app.WithTable(holdtable.Table)), every run
// writes it beside jobs.parquet, every sweep over all its runs (each row
// led by the run columns: run_id, cell, policy, ...), and export converts
// it to CSV or JSON Lines with its types.
package holdtable

import (
	"sort"

	"github.com/polluxsim/polluxsim/experiments/outputs"
)

// Row is one application of a run.
type Row struct {
	App      string
	Jobs     int
	GPUHours float64
	Share    float64
}

// Rows are a run's rows, by application name.
func Rows(d *outputs.RunData) []Row {
	by := map[string]*Row{}
	total := 0.0
	for i := range d.Jobs {
		j := &d.Jobs[i]
		r := by[j.App]
		if r == nil {
			r = &Row{App: j.App}
			by[j.App] = r
		}
		r.Jobs++
		r.GPUHours += j.GPUSeconds / 3600
		total += j.GPUSeconds / 3600
	}
	rows := make([]Row, 0, len(by))
	for _, r := range by {
		if total > 0 {
			r.Share = r.GPUHours / total
		}
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].App < rows[b].App })
	return rows
}

// Table is the table: app.WithTable(holdtable.Table).
var Table = outputs.NewRunTable("holds.parquet", "example: one row per application of a run", Rows,
	outputs.Str("application", "", "the application", func(r Row) string { return r.App }),
	outputs.I64("jobs", "", "the application's jobs in the run", func(r Row) int64 { return int64(r.Jobs) }),
	outputs.F64("gpu_hours", "GPU·h", "GPU time its jobs held", func(r Row) float64 { return r.GPUHours }),
	outputs.F64("share", "fraction", "its share of the run's GPU time", func(r Row) float64 { return r.Share }),
)
