package experiments

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// gridSpec is a small spec with a grid of two policies under two
// settings and a lines and a bars plot of them.
const gridSpec = `{"name": "g", "version": 1, "workloads": {"count": 2, "jobs": 40}, "cells": [],
 "grid": {
  "policies": [
    {"name": "fifo", "label": "FIFO", "policy": "fifo"},
    {"name": "tir", "policy": "tiresias", "options": {"demote_gpu_hours": 2}}
  ],
  "settings": [
    {"name": "l1", "label": "load 1", "x": 1, "workload": {"load": 1}},
    {"name": "l2", "label": "load 2", "x": 2, "settings": {"interval_s": 120}, "workload": {"load": 2}}
  ],
  "plots": [
    {"name": "jct", "kind": "lines", "metric": "avg_jct_s", "settings": ["l1", "l2"]},
    {"name": "bars", "kind": "bars", "metric": "avg_jct_s", "settings": ["l2"]}
  ]}}`

// explicitSpec is gridSpec written out cell by cell.
const explicitSpec = `{"name": "g", "version": 1, "workloads": {"count": 2, "jobs": 40}, "cells": [
  {"name": "fifo-l1", "label": "FIFO, load 1", "policy": "fifo", "workload": {"load": 1}},
  {"name": "tir-l1", "label": "tir, load 1", "policy": "tiresias", "options": {"demote_gpu_hours": 2}, "workload": {"load": 1}},
  {"name": "fifo-l2", "label": "FIFO, load 2", "policy": "fifo", "settings": {"interval_s": 120}, "workload": {"load": 2}},
  {"name": "tir-l2", "label": "tir, load 2", "policy": "tiresias", "options": {"demote_gpu_hours": 2}, "settings": {"interval_s": 120}, "workload": {"load": 2}}],
 "plots": [
  {"name": "jct", "kind": "lines", "metric": "avg_jct_s", "series": [
    {"label": "FIFO", "points": [{"x": 1, "cell": "fifo-l1"}, {"x": 2, "cell": "fifo-l2"}]},
    {"label": "tir", "points": [{"x": 1, "cell": "tir-l1"}, {"x": 2, "cell": "tir-l2"}]}]},
  {"name": "bars", "kind": "bars", "metric": "avg_jct_s", "groups": [{"label": "load 2"}], "series": [
    {"label": "FIFO", "cells": ["fifo-l2"]}, {"label": "tir", "cells": ["tir-l2"]}]}]}`

// TestGrid: a grid is its cells and plots written out: the same runs (ids,
// specs, loads) and the same plots as the explicit spec; the experiment
// written back as JSON reads back to the same runs.
func TestGrid(t *testing.T) {
	g, err := ParseExperiment([]byte(gridSpec), "grid", testExt())
	if err != nil {
		t.Fatal(err)
	}
	x, err := ParseExperiment([]byte(explicitSpec), "explicit", testExt())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Runs()) != 8 || len(g.Runs()) != len(x.Runs()) {
		t.Fatalf("%d runs from the grid, %d written out", len(g.Runs()), len(x.Runs()))
	}
	for i, r := range g.Runs() {
		w := x.Runs()[i]
		if r.ID() != w.ID() || !reflect.DeepEqual(r.Cell.Spec(), w.Cell.Spec()) || r.Cell.Title() != w.Cell.Title() || r.Cell.Load() != w.Cell.Load() {
			t.Errorf("run %d: %s %+v, written out %s %+v", i, r.ID(), r.Cell.Spec(), w.ID(), w.Cell.Spec())
		}
	}
	if !reflect.DeepEqual(g.Plots, x.Plots) {
		t.Errorf("plots %+v, written out %+v", g.Plots, x.Plots)
	}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseStoredExperiment(data, "back", testExt())
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Runs()) != len(g.Runs()) {
		t.Errorf("written back: %d runs, want %d", len(back.Runs()), len(g.Runs()))
	}
}

// TestGridErrors: a grid's mistakes are one line naming them.
func TestGridErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`{"name": "l2", "label": "load 2"`, `{"name": "l1", "label": "load 2"`, `setting "l1" appears twice`},
		{`"settings": ["l2"]`, `"settings": ["l3"]`, `plot "bars": unknown setting "l3"`},
		{`"kind": "bars"`, `"kind": "jct_cdf"`, `a grid draws lines or bars`},
		{`"settings": ["l2"]`, `"settings": []`, `plot "bars": want the settings it shows`},
		{`{"name": "tir", "policy": "tiresias"`, `{"name": "fifo", "policy": "tiresias"`, `cell "fifo-l1" appears twice`},
		{`"policy": "tiresias"`, `"policy": "nosuch"`, `nosuch`},
	} {
		spec := strings.Replace(gridSpec, tc.from, tc.to, 1)
		if spec == gridSpec {
			t.Fatalf("%q not in the spec", tc.from)
		}
		_, err := ParseExperiment([]byte(spec), "grid", testExt())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s → %s: %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
}

// TestDeadlinesGrid: in the deadlines experiment a policy is one line of
// the grid: adding one (as ElasticFlow, Chronus and Gandiva were) adds a
// cell under each of the five settings and a series to each of the grid's
// plots; the spec's own plot of the deadline-aware schedulers lists its
// series and keeps them.
func TestDeadlinesGrid(t *testing.T) {
	e, data, err := LoadExperiment("deadlines", testExt())
	if err != nil {
		t.Fatal(err)
	}
	line := `      {"name": "tiresias", "label": "Tiresias+TunedJobs", "policy": "tiresias"},` + "\n"
	if !strings.Contains(string(data), line) {
		t.Fatalf("the spec has no line %q", line)
	}
	more := strings.Replace(string(data), line, line+`      {"name": "fifo", "label": "FIFO", "policy": "fifo"},`+"\n", 1)
	e2, err := ParseExperiment([]byte(more), "deadlines+fifo", testExt())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(e2.Cells), len(e.Cells)+5; got != want {
		t.Errorf("%d cells with a policy more, want %d", got, want)
	}
	for i := range e2.Plots {
		want := len(e.Plots[i].Series) + 1
		if e.Plots[i].Name == "deadlines-ratio-deadline-aware" {
			want--
		}
		if got := len(e2.Plots[i].Series); got != want {
			t.Errorf("plot %s: %d series, want %d", e2.Plots[i].Name, got, want)
		}
	}
	if c := e2.Cell("fifo-t2-load2"); c == nil || c.Jobs() != 320 {
		t.Errorf("fifo at load 2: %+v", c)
	}
}
