package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// statTable is a table of one metric's mean and 95 % confidence interval
// per row (a cell, or a paired ratio), with the reference numbers beside
// and whether each lies inside the interval.
type statTable struct {
	ID, Heading string
	// Refs name the reference columns (the experiment's sources).
	Refs []string
	Rows []statRow
	// Ratios are paired ratios of the same metric, after the cells.
	Ratios []statRow
}

type statRow struct {
	Name, Mean, CI string
	N              int
	Refs           []refCell // one per statTable.Refs
}

// refCell is a reference number and whether the row's interval holds
// it: "inside", "outside" or "" (no interval).
type refCell struct {
	Value, Verdict string
}

// ratioScale shows ratios bare with three decimals.
var ratioScale = outputs.Scale{Div: 1, Digits: 3}

// headlineMetric is the metric the report leads with: the one the
// experiment's first paired ratio compares, else the first declared
// metric of the report's tables.
func headlineMetric(ms outputs.Metrics, sum *sweep.SweepSummary) (outputs.Metric, bool) {
	if len(sum.Ratios) > 0 {
		if m, ok := results.Declaration(ms, sum.Ratios[0].Metric); ok {
			return m, true
		}
	}
	for _, m := range ms.All() {
		if m.Report {
			return m, true
		}
	}
	return outputs.Metric{}, false
}

// metricTable tabulates metric m over the cells that have it, on the scale
// of its largest mean; ok is false when no cell has it.
func metricTable(sum *sweep.SweepSummary, m outputs.Metric) (statTable, bool) {
	typical := 0.0
	for _, c := range sum.Cells {
		if st, ok := c.Metrics[m.Name]; ok {
			typical = max(typical, st.Central())
		}
	}
	scale := m.ScaleFor(typical)
	t := statTable{ID: "metric-" + m.Name, Heading: scale.Heading(m.Label)}
	refs := map[string]bool{}
	for _, c := range sum.Cells {
		if _, ok := c.Metrics[m.Name]; !ok {
			continue
		}
		for name, vals := range c.Reference {
			if _, ok := vals[m.Name]; ok {
				refs[name] = true
			}
		}
	}
	t.Refs = slices.Sorted(maps.Keys(refs))
	for _, c := range sum.Cells {
		st, ok := c.Metrics[m.Name]
		if !ok {
			continue
		}
		ref := map[string]float64{}
		for name, vals := range c.Reference {
			if v, ok := vals[m.Name]; ok {
				ref[name] = v
			}
		}
		t.Rows = append(t.Rows, statRowOf(c.Label, st, m, scale, t.Refs, ref))
	}
	return t, len(t.Rows) > 0
}

// ratioRows are the rows of the paired ratios that keep is true for,
// with the references' columns refs (extended by the ratios' own).
func ratioRows(sum *sweep.SweepSummary, keep func(r sweep.RatioSummary) bool, refs []string) ([]statRow, []string) {
	have := map[string]bool{}
	for _, n := range refs {
		have[n] = true
	}
	for _, r := range sum.Ratios {
		if keep(r) {
			for n := range r.Reference {
				have[n] = true
			}
		}
	}
	refs = slices.Sorted(maps.Keys(have))
	// Ratios of metrics, which are never negative, are never negative:
	// the bounds of a metric without a unit.
	var bound outputs.Metric
	var rows []statRow
	for _, r := range sum.Ratios {
		if keep(r) {
			rows = append(rows, statRowOf(r.Name, r.Stat, bound, ratioScale, refs, r.Reference))
		}
	}
	return rows, refs
}

// statRowOf is one row: the mean and the interval clipped to m's bounds,
// on scale, and each reference with whether the interval holds it.
func statRowOf(name string, st results.Stat, m outputs.Metric, scale outputs.Scale, refs []string, ref map[string]float64) statRow {
	row := statRow{Name: name, N: st.N, Mean: scale.Format(st.Central())}
	var lo, hi float64
	if st.CI95 != nil {
		lo, hi = m.Clip(st.CI95[0]), m.Clip(st.CI95[1])
		row.CI = fmt.Sprintf("[%s, %s]", scale.Format(lo), scale.Format(hi))
	}
	for _, n := range refs {
		v, ok := ref[n]
		if !ok {
			row.Refs = append(row.Refs, refCell{})
			continue
		}
		c := refCell{Value: scale.Format(v)}
		if st.CI95 != nil {
			c.Verdict = "outside"
			if lo <= v && v <= hi {
				c.Verdict = "inside"
			}
		}
		row.Refs = append(row.Refs, c)
	}
	return row
}

// headline is the table the report opens with: the headline metric per
// cell and its paired ratios, with the references and whether each lies
// inside the interval; m is its metric.
func headline(ms outputs.Metrics, sum *sweep.SweepSummary) (t statTable, m outputs.Metric, ok bool) {
	if m, ok = headlineMetric(ms, sum); !ok {
		return t, m, false
	}
	if t, ok = metricTable(sum, m); !ok {
		return t, m, false
	}
	t.ID = "headline"
	rows, refs := ratioRows(sum, func(r sweep.RatioSummary) bool { return sameMetric(ms, r.Metric, m) }, t.Refs)
	t.Rows, t.Refs, t.Ratios = widen(t.Rows, t.Refs, refs), refs, rows
	return t, m, true
}

// sameMetric says whether a ratio's metric name is m (or an earlier name
// of it).
func sameMetric(ms outputs.Metrics, name string, m outputs.Metric) bool {
	d, ok := results.Declaration(ms, name)
	return ok && d.Name == m.Name
}

// widen spreads rows' reference cells from the columns from to the
// columns to (a superset).
func widen(rows []statRow, from, to []string) []statRow {
	for i := range rows {
		cells := make([]refCell, len(to))
		for j, n := range to {
			if k := slices.Index(from, n); k >= 0 {
				cells[j] = rows[i].Refs[k]
			}
		}
		rows[i].Refs = cells
	}
	return rows
}
