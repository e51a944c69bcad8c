package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
)

// Report writes a sweep's report as one self-contained HTML page that
// leads with the result, after an "incomplete: N of M runs" banner when
// runs are missing (a shard, a selection of workloads): the headline table (the headline metric per cell
// with its 95 % confidence interval, its paired ratios, the reference
// numbers and whether each lies inside the interval), then every figure
// as inline SVG, every reported metric of ms (the zero Metrics: exp's)
// per cell that asks for a table (Metric.Report), the other paired
// ratios, and last a collapsed provenance (versions, inputs, each cell's
// non-default settings). Labels and units come from the metrics'
// declarations. The page loads nothing (a Content-Security-Policy forbids
// it) and runs one small script that marks each figure as rendered and
// records where the headline table ends.
func Report(w io.Writer, ms outputs.Metrics, exp *experiments.Experiment, runs []*results.RunResult, missing []string) error {
	if ms.IsZero() {
		ms = exp.MetricSet()
	}
	sum := sweep.Summarize(ms, exp, runs, missing)
	d := reportData{Exp: exp, Sum: sum, Provenance: provenance(exp, runs, sum)}
	head, hm, ok := headline(ms, sum)
	if ok {
		d.Headline = &head
	}
	if len(exp.Sources) > 0 || len(head.Refs) > 0 {
		d.Applies = referenceApplies(runs)
	}
	for _, m := range ms.All() {
		if !m.Report {
			continue
		}
		if t, ok := metricTable(sum, m); ok {
			d.Metrics = append(d.Metrics, t)
		}
	}
	d.Ratios, d.RatioRefs = ratioRows(sum, func(r sweep.RatioSummary) bool {
		return !ok || !sameMetric(ms, r.Metric, hm)
	}, nil)
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
	Headline   *statTable
	Applies    string
	Provenance [][2]string
	Metrics    []statTable
	Ratios     []statRow
	RatioRefs  []string
	Figures    []reportFigure
	Skipped    []string
}

type reportFigure struct {
	ID, Name, Caption string
	SVG               template.HTML
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>polluxsim report: {{.Exp.Name}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 70rem; margin: 1rem auto; padding: 0 1rem; color: #222; line-height: 1.35; }
h1 { font-size: 1.5rem; margin: 0 0 0.4rem; }
h2 { font-size: 1.2rem; margin-top: 1.8rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; margin-bottom: 0.3rem; }
table { border-collapse: collapse; margin: 0.4rem 0 0.6rem; font-size: 0.92rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
.grid { display: flex; flex-wrap: wrap; gap: 0 2rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { background: #f3f3f3; white-space: nowrap; }
th.group { background: #e8eef7; text-align: left; }
#headline caption { text-align: left; font-weight: bold; padding-bottom: 0.2rem; }
.inside { color: #1a6b1a; }
.outside { color: #a33; font-weight: bold; }
figure { margin: 1rem 0 2rem; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #555; }
.note { color: #555; font-size: 0.9rem; margin: 0.3rem 0; }
.incomplete { background: #fff3cd; border: 1px solid #d9a400; padding: 0.4rem 0.6rem; font-weight: bold; }
details { margin: 1.5rem 0; }
summary { font-size: 1.2rem; font-weight: bold; cursor: pointer; }
</style>
</head>
<body>
<h1>{{.Exp.Name}}</h1>
{{if lt .Sum.Runs .Sum.ExpectedRuns}}<p id="incomplete" class="incomplete">incomplete: {{.Sum.Runs}} of {{.Sum.ExpectedRuns}} runs. The means, intervals and ratios below are over the runs present only (the missing runs, of another shard, left out by <code>--workloads-only</code> or not yet run, are listed under Provenance); sweep again without a selector, or merge the other shards, to complete it.</p>
{{end}}{{define "refs"}}{{range .}}<td class="num">{{if .Value}}{{.Value}}{{if .Verdict}} <span class="{{.Verdict}}">{{.Verdict}}</span>{{end}}{{end}}</td>{{end}}{{end}}
{{define "table"}}<tr><th>{{.Heading}}</th><th>n</th><th>mean</th><th>95 % CI</th>{{range .Refs}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{.Mean}}</td><td class="num">{{.CI}}</td>{{template "refs" .Refs}}</tr>
{{end}}{{end}}
{{with .Headline}}<table id="headline">
<caption>The result: mean over the workloads with its 95 % confidence interval{{if .Refs}}; each reference number, and whether it lies inside the interval{{end}}</caption>
{{template "table" .}}{{if .Ratios}}<tr><th class="group">paired ratio (per workload)</th><th>n</th><th>mean</th><th>95 % CI</th>{{range .Refs}}<th>{{.}}</th>{{end}}</tr>
{{range .Ratios}}<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{.Mean}}</td><td class="num">{{.CI}}</td>{{template "refs" .Refs}}</tr>
{{end}}{{end}}</table>
{{if .Ratios}}<p class="note">A paired ratio is the mean of the per-workload ratios (each workload weighs the same), not the ratio of the two cells' means; a reference simulator's published ratio is the ratio of its means.</p>
{{end}}{{end}}{{if .Applies}}<p class="note">Do the references apply to these runs? {{.Applies}}.</p>{{end}}
<p class="note">{{.Exp.Description}}</p>
{{if .Exp.Paper}}<p class="note">Paper: {{.Exp.Paper}}</p>{{end}}

<h2 id="figures">Figures</h2>
{{range .Figures}}<figure id="{{.ID}}" class="plot">
{{.SVG}}
<figcaption>{{.Name}}: {{.Caption}}</figcaption>
</figure>
{{end}}{{if .Skipped}}<p class="note">Not drawn: {{range .Skipped}}{{.}}. {{end}}</p>{{end}}

<h2 id="metrics">Metrics per cell</h2>
<p class="note">Mean over the workloads, with the 95 % confidence interval of the mean (Student's t), clipped to the metric's range.</p>
<div class="grid">
{{range .Metrics}}<div><table id="{{.ID}}">
{{template "table" .}}</table></div>
{{end}}</div>
{{if .Ratios}}<h2 id="ratios">Other paired ratios</h2>
<p class="note">Ratio of two cells' metric, paired by workload: the mean of the per-workload ratios with its 95 % confidence interval.</p>
<table id="ratios-table">
<tr><th>ratio</th><th>n</th><th>mean</th><th>95 % CI</th>{{range .RatioRefs}}<th>{{.}}</th>{{end}}</tr>
{{range .Ratios}}<tr><td>{{.Name}}</td><td class="num">{{.N}}</td><td class="num">{{.Mean}}</td><td class="num">{{.CI}}</td>{{template "refs" .Refs}}</tr>
{{end}}</table>
{{end}}
<details id="provenance">
<summary>Provenance</summary>
<p class="note">Each cell's settings and policy options that differ from the policy's defaults, as key=value.</p>
<table>
{{range .Provenance}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
</details>
<script>
// Marks each figure whose SVG laid out with a non-empty box, and records
// where the headline table ends (pixels from the top of the page).
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
  var h = document.getElementById("headline");
  if (h) {
    var r = h.getBoundingClientRect();
    document.body.setAttribute("data-headline-top", String(Math.floor(r.top + window.scrollY)));
    document.body.setAttribute("data-headline-bottom", String(Math.ceil(r.bottom + window.scrollY)));
  }
})();
</script>
</body>
</html>
`))
