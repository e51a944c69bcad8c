package report

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// Report writes a sweep's report as one self-contained HTML page: its
// provenance (polluxsim versions, inputs, settings, whether the reference
// numbers apply to these inputs), a table per metric with each cell's mean
// and 95 % confidence interval, the paired ratios, and every figure as
// inline SVG. The page loads nothing (a Content-Security-Policy forbids
// it) and runs one small script that marks each figure as rendered.
func Report(w io.Writer, exp *experiments.Experiment, runs []*results.RunResult, missing []string) error {
	sum := sweep.Summarize(exp, runs, missing)
	d := reportData{Exp: exp, Sum: sum}
	d.Provenance = provenance(exp, runs, sum)
	for _, m := range outputs.Metrics() {
		if m.Title == "" {
			continue // not in the report's tables
		}
		t := metricTable{Name: m.Name, Title: m.Title}
		for _, c := range sum.Cells {
			st, ok := c.Metrics[m.Name]
			if !ok {
				continue
			}
			row := metricRow{Cell: c.Label, N: st.N, Mean: m.Format(st.Mean)}
			if st.CI95 != nil {
				row.CI = "[" + m.Format(st.CI95[0]) + ", " + m.Format(st.CI95[1]) + "]"
			}
			var refs []string
			for _, name := range slices.Sorted(maps.Keys(c.Reference)) {
				if v, ok := c.Reference[name][m.Name]; ok {
					refs = append(refs, name+" "+m.Format(v))
				}
			}
			row.Ref = strings.Join(refs, "; ")
			t.Rows = append(t.Rows, row)
		}
		if len(t.Rows) > 0 {
			d.Metrics = append(d.Metrics, t)
		}
	}
	for _, r := range sum.Ratios {
		row := ratioRow{Name: r.Name, Metric: r.Metric, N: r.Stat.N, Mean: fmt.Sprintf("%.3f", r.Stat.Mean)}
		if r.Stat.CI95 != nil {
			row.CI = fmt.Sprintf("[%.3f, %.3f]", r.Stat.CI95[0], r.Stat.CI95[1])
		}
		var refs []string
		for _, name := range slices.Sorted(maps.Keys(r.Reference)) {
			refs = append(refs, fmt.Sprintf("%s %.3f", name, r.Reference[name]))
		}
		row.Ref = strings.Join(refs, "; ")
		d.Ratios = append(d.Ratios, row)
	}
	rendered, err := figures.RenderSVG(exp, runs)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range rendered {
		if f.Err != nil {
			d.Skipped = append(d.Skipped, fmt.Sprintf("%s: %v", f.Name, f.Err))
			continue
		}
		d.Figures = append(d.Figures, reportFigure{ID: "plot-" + f.Name, Name: f.Name,
			SVG: template.HTML(f.SVG), Caption: f.Caption})
	}
	return reportTemplate.Execute(w, d)
}

type reportData struct {
	Exp        *experiments.Experiment
	Sum        *sweep.SweepSummary
	Provenance [][2]string
	Metrics    []metricTable
	Ratios     []ratioRow
	Figures    []reportFigure
	Skipped    []string
}

type metricTable struct {
	Name, Title string
	Rows        []metricRow
}

type metricRow struct {
	Cell, Mean, CI, Ref string
	N                   int
}

type ratioRow struct {
	Name, Metric, Mean, CI, Ref string
	N                           int
}

type reportFigure struct {
	ID, Name, Caption string
	SVG               template.HTML
}

// provenance lists where the numbers come from: versions, inputs,
// settings, and whether the reference numbers were measured on the same
// inputs as these runs.
func provenance(exp *experiments.Experiment, runs []*results.RunResult, sum *sweep.SweepSummary) [][2]string {
	set := func(get func(r *results.RunResult) string) string {
		m := map[string]bool{}
		for _, r := range runs {
			m[get(r)] = true
		}
		return strings.Join(slices.Sorted(maps.Keys(m)), "; ")
	}
	p := [][2]string{
		{"experiment", fmt.Sprintf("%s, version %d", exp.Name, exp.Version)},
		{"runs", fmt.Sprintf("%d of %d", sum.Runs, sum.ExpectedRuns)},
		{"polluxsim", set(func(r *results.RunResult) string { return r.PolluxsimVersion })},
		{"profiles", set(func(r *results.RunResult) string {
			if r.Profiles == r.ProfilesID {
				return r.Profiles
			}
			return r.ProfilesID + " (" + r.Profiles + ")"
		})},
		{"workloads", workloadKinds(runs)},
	}
	if len(sum.Missing) > 0 {
		p = append(p, [2]string{"missing runs", strings.Join(sum.Missing, ", ")})
	}
	for _, c := range sum.Cells {
		s := c.Settings
		p = append(p, [2]string{"cell " + c.Cell, fmt.Sprintf("%s; policy %s, options %s; %d × %d GPUs, interval %g s, restart delay %g s, interference %g, step %v, seed %d; load %g, %s configurations",
			c.Label, s.Policy, outputs.OptionsJSON(s), s.Nodes, s.GPUsPerNode, s.Interval, s.RestartDelay, s.Interference, s.Step, s.Seed, c.Load, c.Config)})
	}
	for _, name := range slices.Sorted(maps.Keys(exp.Sources)) {
		p = append(p, [2]string{"reference " + name, exp.Sources[name]})
	}
	if len(exp.Sources) > 0 || hasReference(sum) {
		p = append(p, [2]string{"do the references apply?", referenceApplies(runs)})
	}
	return p
}

// workloadKinds lists the kinds of workloads the runs used, with counts.
func workloadKinds(runs []*results.RunResult) string {
	n := map[string]int{}
	for _, r := range runs {
		n[figures.WorkloadKind(r.WorkloadSource)]++
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(n)) {
		out = append(out, fmt.Sprintf("%s (%d runs)", k, n[k]))
	}
	return strings.Join(out, "; ")
}

func hasReference(sum *sweep.SweepSummary) bool {
	for _, c := range sum.Cells {
		if len(c.Reference) > 0 {
			return true
		}
	}
	for _, r := range sum.Ratios {
		if len(r.Reference) > 0 {
			return true
		}
	}
	return false
}

// referenceApplies says whether the runs used the inputs the published
// numbers were measured on: the measured tables and the reference
// workloads.
func referenceApplies(runs []*results.RunResult) string {
	var why []string
	for _, r := range runs {
		if r.ProfilesID != "embedded" {
			why = append(why, "these runs use the profiles "+r.ProfilesID+", not the measured tables")
			break
		}
	}
	for _, r := range runs {
		if strings.HasPrefix(r.WorkloadSource, "generated") {
			why = append(why, "some workloads are generated, not the reference workloads")
			break
		}
	}
	if len(why) == 0 {
		return "yes: the runs use the measured tables and the reference workloads"
	}
	return "only roughly: " + strings.Join(why, "; ")
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>polluxsim report: {{.Exp.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 70rem; margin: 1.5rem auto; padding: 0 1rem; color: #222; line-height: 1.4; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; margin-bottom: 0.3rem; }
table { border-collapse: collapse; margin: 0.4rem 0 1rem; font-size: 0.92rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.grid { display: flex; flex-wrap: wrap; gap: 0 2rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { background: #f3f3f3; white-space: nowrap; }
figure { margin: 1rem 0 2rem; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #555; }
.note { color: #555; font-size: 0.9rem; }
</style>
</head>
<body>
<h1>{{.Exp.Name}}</h1>
<p>{{.Exp.Description}}</p>
{{if .Exp.Paper}}<p class="note">Paper: {{.Exp.Paper}}</p>{{end}}

<h2 id="provenance">Provenance</h2>
<table>
{{range .Provenance}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>

<h2 id="figures">Figures</h2>
{{range .Figures}}<figure id="{{.ID}}" class="plot">
{{.SVG}}
<figcaption>{{.Name}}: {{.Caption}}</figcaption>
</figure>
{{end}}{{if .Skipped}}<p class="note">Not drawn: {{range .Skipped}}{{.}}. {{end}}</p>{{end}}

<h2 id="metrics">Metrics per cell</h2>
<p class="note">Mean over the workloads, with the 95 % confidence interval of the mean (Student's t).</p>
<div class="grid">
{{range .Metrics}}<div><h3>{{.Title}}</h3>
<table id="metric-{{.Name}}">
<tr><th>cell</th><th>n</th><th>mean</th><th>95 % CI</th><th>reference</th></tr>
{{range .Rows}}<tr><td>{{.Cell}}</td><td class="num">{{.N}}</td><td class="num">{{.Mean}}</td><td class="num">{{.CI}}</td><td>{{.Ref}}</td></tr>
{{end}}</table></div>
{{end}}</div>
{{if .Ratios}}<h2 id="ratios">Paired ratios</h2>
<p class="note">Ratio of two cells' metric, paired by workload: the mean of the per-workload ratios with its 95 % confidence interval.</p>
<table id="ratios-table">
<tr><th>ratio</th><th>metric</th><th>n</th><th>mean</th><th>95 % CI</th><th>reference</th></tr>
{{range .Ratios}}<tr><td>{{.Name}}</td><td>{{.Metric}}</td><td class="num">{{.N}}</td><td class="num">{{.Mean}}</td><td class="num">{{.CI}}</td><td>{{.Ref}}</td></tr>
{{end}}</table>
{{end}}
<script>
// Marks each figure whose SVG laid out with a non-empty box.
(function () {
  var n = 0;
  document.querySelectorAll("figure.plot").forEach(function (f) {
    var s = f.querySelector("svg");
    if (s && s.getBoundingClientRect().width > 0 && s.getBoundingClientRect().height > 0) {
      f.setAttribute("data-rendered", "yes");
      n++;
    }
  });
  document.body.setAttribute("data-plots-rendered", String(n));
})();
</script>
</body>
</html>
`))
