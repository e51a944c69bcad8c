package sweep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/extensions"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/report"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/profiles"
)

// avgPending is a metric as a user declares it outside the tree: one
// value, computed from a run's rounds, with no engine edit: the
// time-weighted mean of the jobs waiting without GPUs. A sweep reports
// the largest over workloads.
var avgPending = outputs.Metric{
	Name: "avg_pending_jobs", Unit: "jobs", Doc: "time-weighted mean of the jobs waiting without GPUs",
	Label: "average pending jobs", Report: true, Aggregate: outputs.Max,
	Value: func(d *outputs.RunData) (float64, bool) {
		var sum, span float64
		for _, r := range d.Rounds {
			sum += float64(r.Pending) * r.Duration
			span += r.Duration
		}
		return sum / span, span > 0
	},
}

// TestMetricDoorFromOutside: the metric, one entry in the set passed down,
// is a key of a run's summary.json, a column of a sweep's
// results.parquet, an aggregate of its summary.json (the largest, as
// declared), a table of its report and a metric regress checks.
func TestMetricDoorFromOutside(t *testing.T) {
	ext := testext.Ext(extensions.WithMetric(avgPending))
	ms := ext.MetricSet()
	dir := t.TempDir()

	// A run.
	runDir := filepath.Join(dir, "run")
	res, err := runner.Run(context.Background(), runspec.DefaultSpec("fifo"), runner.Inputs{WorkloadRef: "paper:1"},
		runner.Options{Ext: ext, Out: runDir, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(runDir, "summary.json"))
	var sum map[string]any
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	want, _ := avgPending.Of(outputs.NewRunData(res.Sim, true))
	if got, ok := sum["avg_pending_jobs"].(float64); !ok || got != want || want <= 0 {
		t.Errorf("summary.json avg_pending_jobs = %v, want %v", sum["avg_pending_jobs"], want)
	}

	// A sweep.
	spec := []byte(`{"name": "door", "version": 1, "description": "a metric of one's own",
	  "workloads": {"count": 2}, "cells": [{"name": "fifo", "policy": "fifo"}, {"name": "tiresias", "policy": "tiresias"}]}`)
	exp, err := experiments.ParseExperiment(spec, "door", ext)
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Default()
	out := filepath.Join(dir, "sweep")
	rep, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{Profiles: set, ProfilesID: set.Digest, Out: out,
		Parallel: 1, NoTiming: true, Version: "door", Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := outputs.ReadTableColumns(filepath.Join(out, sweep.ResultsFile), "cell", "avg_pending_jobs")
	if err != nil {
		t.Fatal(err)
	}
	largest := map[string]float64{}
	for i, c := range tc.Strs["cell"] {
		largest[c] = math.Max(largest[c], tc.Nums["avg_pending_jobs"][i])
	}
	for _, c := range rep.Summary.Cells {
		st, ok := c.Metrics["avg_pending_jobs"]
		if !ok || st.Aggregate != "max" || st.Value == nil || *st.Value != largest[c.Cell] || st.N != 2 {
			t.Errorf("cell %s: %+v, want the largest of %v", c.Cell, st, largest[c.Cell])
		}
	}
	stored, err := sweep.ReadSweepSummary(filepath.Join(out, sweep.SummaryFile))
	if err != nil || stored.Cells[0].Metrics["avg_pending_jobs"].Value == nil {
		t.Fatalf("the stored summary has no aggregate: %v", err)
	}

	// The report and regress, over the stored runs.
	e, runs, missing, err := sweep.OpenSweep(out, testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := report.Report(&html, ms, e, runs, missing); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "average pending jobs") {
		t.Error("the report has no table of the metric")
	}
	bp := filepath.Join(dir, "baseline.json")
	if err := sweep.WriteBaseline(bp, &sweep.Baseline{Experiment: "door", Version: 1, Tolerance: 0.01, Cells: []sweep.BaselineCell{
		{Cell: "fifo", Metric: "avg_pending_jobs", Expected: largest["fifo"] * 0.9}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.ReadBaseline(outputs.Metrics{}, bp); err == nil {
		t.Error("a baseline of an unknown metric was read with the built-in set")
	}
	b, err := sweep.ReadBaseline(ms, bp)
	if err != nil {
		t.Fatal(err)
	}
	checks, err := sweep.Regress(ms, b, rep.Summary, nil)
	if err != nil || len(checks) != 1 || checks[0].OK || !checks[0].Worse {
		t.Errorf("regress: %+v %v; want a drift for the worse (more pending jobs)", checks, err)
	}
	// The stock set knows nothing of it, and results.parquet rebuilt with
	// it has no such column.
	if _, err := sweep.Rebuild(out, e, outputs.BuiltinMetrics()); err != nil {
		t.Fatal(err)
	}
	if _, err := outputs.ReadTableColumns(filepath.Join(out, sweep.ResultsFile), "avg_pending_jobs"); err == nil {
		t.Error("the built-in set wrote the metric of one's own")
	}
}

// TestMetricFromExtensions: the same metric, registered once in the
// extensions (extensions.WithMetric) and no set passed anywhere, is known
// to the spec format (a ratio and a lines plot name it), written by a run
// and a sweep, merged, reported and merged into another value; a binary
// without it refuses a spec naming it.
func TestMetricFromExtensions(t *testing.T) {
	ext := testext.Ext(extensions.WithMetric(avgPending))
	if err := extensions.WithMetric(avgPending)(ext); err == nil {
		t.Error("a metric registered twice")
	}
	dir := t.TempDir()

	runDir := filepath.Join(dir, "run")
	if _, err := runner.Run(context.Background(), runspec.DefaultSpec("fifo"), runner.Inputs{WorkloadRef: "paper:1"},
		runner.Options{Ext: ext, Out: runDir, NoTiming: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(runDir, "summary.json"))
	if !bytes.Contains(data, []byte(`"avg_pending_jobs"`)) {
		t.Error("the run's summary.json lacks the metric of the extensions")
	}

	spec := []byte(`{"name": "door", "version": 1, "description": "a metric of one's own",
	  "workloads": {"count": 2}, "cells": [{"name": "fifo", "policy": "fifo"}, {"name": "tiresias", "policy": "tiresias"}],
	  "ratios": [{"name": "pending", "num": "tiresias", "den": "fifo", "metric": "avg_pending_jobs"}],
	  "plots": [{"name": "pending", "kind": "lines", "metric": "avg_pending_jobs", "series": [{"label": "all", "points": [{"x": 1, "cell": "fifo"}, {"x": 2, "cell": "tiresias"}]}]}]}`)
	if _, err := experiments.ParseExperiment(spec, "door", testext.Ext()); err == nil || !strings.Contains(err.Error(), "avg_pending_jobs") {
		t.Errorf("a binary without the metric parsed a spec naming it: %v", err)
	}
	exp, err := experiments.ParseExperiment(spec, "door", ext)
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Default()
	out := filepath.Join(dir, "sweep")
	rep, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{Profiles: set, ProfilesID: set.Digest, Out: out,
		Parallel: 1, NoTiming: true, Version: "door", Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Summary.Cells {
		if st, ok := c.Metrics["avg_pending_jobs"]; !ok || st.Aggregate != "max" || st.Value == nil {
			t.Errorf("cell %s: %+v", c.Cell, st)
		}
	}
	if _, err := outputs.ReadTableColumns(filepath.Join(out, sweep.ResultsFile), "avg_pending_jobs"); err != nil {
		t.Error(err)
	}
	merged := filepath.Join(dir, "merged")
	if _, err := sweep.Merge(ext, merged, []string{out}); err != nil {
		t.Fatal(err)
	}
	if _, err := outputs.ReadTableColumns(filepath.Join(merged, sweep.ResultsFile), "avg_pending_jobs"); err != nil {
		t.Errorf("merge: %v", err)
	}
	e, runs, missing, err := sweep.OpenSweep(out, ext)
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := report.Report(&html, outputs.Metrics{}, e, runs, missing); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), "average pending jobs") {
		t.Error("the report has no table of the metric")
	}

	// A binary without the metric opens, summarises and reports that
	// sweep, saying it skips the ratio and the plot naming it.
	e, runs, missing, err = sweep.OpenSweep(out, testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	skipped := strings.Join(e.Skipped(), "\n")
	for _, want := range []string{`ratio "pending": metric "avg_pending_jobs"`, `plot "pending": metric "avg_pending_jobs"`} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped %q, want %s", skipped, want)
		}
	}
	// (figures.Plot draws with figures' own kinds.)
	e, runs, missing, err = sweep.OpenSweep(out, testext.Base(figures.WithKind(figures.Builtin()...)))
	if err != nil {
		t.Fatal(err)
	}
	prep, err := figures.Plot(e, runs, filepath.Join(dir, "plots"), figures.PlotOptions{Formats: []string{"svg"}})
	if err != nil || len(prep.Skipped) != 1 || !strings.Contains(prep.Skipped[0], `metric "avg_pending_jobs" is not in this binary`) {
		t.Errorf("plot by a binary without the metric: %v, skipped %q", err, prep.Skipped)
	}
	html.Reset()
	if err := report.Report(&html, outputs.Metrics{}, e, runs, missing); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), "average pending jobs") {
		t.Error("a binary without the metric reported it")
	}
	if sum := sweep.Summarize(outputs.Metrics{}, e, runs, missing); len(sum.Cells) != 2 || sum.Cells[0].Metrics["avg_pending_jobs"].Value != nil {
		t.Errorf("a binary without the metric summarised it: %+v", sum.Cells)
	}

	// Merged into another value, the metric comes along once.
	other := extensions.Must()
	if err := other.Merge(ext); err != nil {
		t.Fatal(err)
	}
	if _, ok := other.MetricSet().Lookup("avg_pending_jobs"); !ok || len(other.MetricSet().All()) != len(ext.MetricSet().All()) {
		t.Errorf("merged set: %d metrics, want %d", len(other.MetricSet().All()), len(ext.MetricSet().All()))
	}
}
