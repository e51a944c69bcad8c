package sweep_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/profiles"
)

// deadlineSweep runs spec (two workloads each) and returns its folder and
// summary.
func deadlineSweep(t *testing.T, spec string) (string, *sweep.SweepSummary) {
	t.Helper()
	ext := testext.Ext()
	exp, err := experiments.ParseExperiment([]byte(spec), "deadlines-test", ext)
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Default()
	out := filepath.Join(t.TempDir(), "sweep")
	rep, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{Profiles: set, ProfilesID: set.Digest, Out: out,
		Parallel: 1, NoTiming: true, Version: "deadlines-test", Spec: []byte(spec)})
	if err != nil {
		t.Fatal(err)
	}
	return out, rep.Summary
}

// TestDeadlineMetricColumns: the deadline metrics are conditional columns
// of results.parquet and aggregates of a sweep's summary.json: in a sweep
// where some runs have deadlines the column holds each such run's value
// (the run's own metric) and null for the runs without, the summary
// aggregates the cells whose runs have them and not the others; a sweep
// without deadlines has neither the columns nor the aggregates.
func TestDeadlineMetricColumns(t *testing.T) {
	const mixed = `{"name": "dl", "version": 1, "description": "d", "workloads": {"count": 2, "jobs": 30,
	  "sets": [{"name": "ddl", "count": 2, "jobs": 30, "source": "generate:jobs=30,seed={i},deadlines=elasticflow"}]},
	  "cells": [{"name": "plain", "policy": "fifo"},
	            {"name": "edf", "policy": "edf", "options": {"admission": true}, "workload": {"set": "ddl"}}]}`
	out, sum := deadlineSweep(t, mixed)
	tc, err := outputs.ReadTableColumns(filepath.Join(out, sweep.ResultsFile), "cell", "deadline_satisfactory_ratio", "jobs_declined")
	if err != nil {
		t.Fatal(err)
	}
	var ratios []float64
	for i, c := range tc.Strs["cell"] {
		r, d := tc.Nums["deadline_satisfactory_ratio"][i], tc.Nums["jobs_declined"][i]
		switch c {
		case "plain":
			if !math.IsNaN(r) || !math.IsNaN(d) {
				t.Errorf("a run without deadlines: ratio %v, declined %v; want nulls", r, d)
			}
		case "edf":
			if !(r >= 0 && r <= 1) || !(d >= 1) {
				t.Errorf("EDF with admission: ratio %v, declined %v", r, d)
			}
			ratios = append(ratios, r)
		}
	}
	st, ok := sum.Cell("edf").Metrics["deadline_satisfactory_ratio"]
	if !ok || st.N != 2 || len(ratios) != 2 || math.Abs(st.Mean-(ratios[0]+ratios[1])/2) > 1e-12 {
		t.Errorf("the summary's ratio of EDF %+v (present %v), the column's %v", st, ok, ratios)
	}
	if _, ok := sum.Cell("plain").Metrics["deadline_satisfactory_ratio"]; ok {
		t.Error("the summary aggregates a deadline metric of a cell without deadlines")
	}

	const plain = `{"name": "dl", "version": 1, "description": "d", "workloads": {"count": 2, "jobs": 30},
	  "cells": [{"name": "plain", "policy": "fifo"}, {"name": "edf", "policy": "edf"}]}`
	out, sum = deadlineSweep(t, plain)
	if _, err := outputs.ReadTableColumns(filepath.Join(out, sweep.ResultsFile), "deadline_satisfactory_ratio"); err == nil {
		t.Error("results.parquet of a sweep without deadlines has the deadline columns")
	}
	for _, c := range sum.Cells {
		for _, m := range []string{"deadline_satisfactory_ratio", "jobs_with_deadline", "jobs_declined", "late_jobs"} {
			if _, ok := c.Metrics[m]; ok {
				t.Errorf("cell %s of a sweep without deadlines: %s aggregated", c.Cell, m)
			}
		}
	}
}
