package sweep_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/figures"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/refdata"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// TestSiaExperimentSpec: the sia experiment has Sia's cluster, three
// workload sets of the artifact's sizes, five policies on each, and ratios
// and plots that stay within one set.
func TestSiaExperimentSpec(t *testing.T) {
	e, _, err := experiments.LoadExperiment("sia", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{"philly": 8, "saturn": 10, "newtrace": 10}
	perSet := map[string]int{}
	for i := range e.Cells {
		c := &e.Cells[i]
		s := c.Spec()
		if s.Cluster != "t4:6x4,a100:2x8,rtx2080ti:3x8" || s.Nodes != 11 || s.GPUsPerNode != 8 || s.Interval != 60 || s.RestartDelay != 30 || s.Seed != 1 {
			t.Errorf("cell %s: settings %+v", c.Name, s)
		}
		if c.Count() != counts[c.Set()] || !strings.HasSuffix(c.Name, "-"+c.Set()) {
			t.Errorf("cell %s: set %q with %d workloads", c.Name, c.Set(), c.Count())
		}
		perSet[c.Set()]++
	}
	for set := range counts {
		if perSet[set] != 5 {
			t.Errorf("set %s: %d cells, want 5", set, perSet[set])
		}
	}
	if got := len(e.Runs()); got != 5*(8+10+10) {
		t.Errorf("%d runs, want %d", got, 5*28)
	}
	if c := e.Cell("sia-newtrace"); c.Jobs() != 960 || c.Spec().Policy != "sia" {
		t.Errorf("sia-newtrace: %d jobs, policy %s", c.Jobs(), c.Spec().Policy)
	}
	for _, r := range e.Ratios {
		if !strings.HasPrefix(r.Num, "sia-") || e.Cell(r.Num).Set() != e.Cell(r.Den).Set() {
			t.Errorf("ratio %q: %s / %s", r.Name, r.Num, r.Den)
		}
	}
	if len(e.Ratios) != 3*(4+4) {
		t.Errorf("%d ratios, want 24", len(e.Ratios))
	}
}

// setExperiment is a small experiment on two named workload sets.
const setExperiment = `{"name": "sets", "version": 1, "description": "two sets",
  "inputs": "--workloads W with a/ and b/",
  "workloads": {"sets": [{"name": "a", "count": 2, "jobs": 6}, {"name": "b", "count": 1, "jobs": 8}]},
  "settings": {"cluster": "t4:2x4,t4:1x8"},
  "cells": [
    {"name": "fifo-a", "policy": "fifo", "workload": {"set": "a"}},
    {"name": "tiresias-a", "policy": "tiresias", "workload": {"set": "a"}},
    {"name": "fifo-b", "policy": "fifo", "workload": {"set": "b"}}
  ],
  "ratios": [{"name": "a: FIFO / Tiresias", "num": "fifo-a", "den": "tiresias-a", "metric": "avg_jct_s"}],
  "plots": [{"name": "bars", "kind": "bars", "metric": "avg_jct_s", "groups": [{"label": "a"}, {"label": "b"}],
             "series": [{"label": "FIFO", "cells": ["fifo-a", "fifo-b"]}, {"label": "Tiresias", "cells": ["tiresias-a", ""]}]},
            {"name": "types", "kind": "bars", "groups": [{"label": "T4", "metric": "gpu_hours_t4"}, {"label": "all", "metric": "gpu_hours"}],
             "series": [{"label": "FIFO", "cells": ["fifo-a", "fifo-a"]}]}]}`

// writeSets writes generated workloads in the layout setExperiment reads:
// a/workload-1.csv, a/workload-2.csv, b/workload-1.csv.
func writeSets(t *testing.T, dir string, set *profiles.Set) {
	t.Helper()
	for _, f := range []struct {
		set        string
		index, job int
	}{{"a", 1, 6}, {"a", 2, 6}, {"b", 1, 8}} {
		w, err := runspec.GenerateWorkload(nil, set, f.job, uint64(10+f.index), traces.ConfigTuned, 4)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, f.set, fmt.Sprintf("workload-%d.csv", f.index))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := traces.Write(out, w); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
}

// TestWorkloadSetsSweep: cells on named sets read exactly their set's
// files, pair per set, and plot as bars; GPU-hours per type are metrics.
func TestWorkloadSetsSweep(t *testing.T) {
	e, err := experiments.ParseExperiment([]byte(setExperiment), "sets", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	if e.Cell("fifo-a").Spec().Cluster != "t4:2x4,t4:1x8" || e.Cell("fifo-a").Spec().Nodes != 3 || e.Cell("fifo-a").Spec().GPUsPerNode != 8 {
		t.Errorf("cluster settings %+v", e.Cell("fifo-a").Spec())
	}
	set := profiles.Compact()
	wdir, out := t.TempDir(), t.TempDir()
	writeSets(t, wdir, set)
	rep, err := sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: set, ProfilesID: "compact", Workloads: wdir, Out: out,
		Parallel: 2, NoTiming: true, Version: "test", Spec: []byte(setExperiment)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 5 || rep.Summary.ExpectedRuns != 5 || rep.Summary.Runs != 5 {
		t.Fatalf("ran %d, summary %d of %d", rep.Ran, rep.Summary.Runs, rep.Summary.ExpectedRuns)
	}
	for _, want := range []struct {
		id, src string
		jobs    int
	}{{"fifo-a.w2", "a/workload-2.csv", 6}, {"fifo-b.w1", "b/workload-1.csv", 8}} {
		id, jobs := want.id, want.jobs
		r, err := results.ReadRunResult(sweep.RunPath(out, id))
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs != jobs || r.WorkloadSource != want.src {
			t.Errorf("%s: %d jobs from %q", id, r.Jobs, r.WorkloadSource)
		}
		if h := r.Summary.GPUHoursByType["t4"]; h <= 0 || h != r.Summary.GPUHours {
			t.Errorf("%s: GPU-hours by type %v, total %v", id, r.Summary.GPUHoursByType, r.Summary.GPUHours)
		}
	}
	st := rep.Summary.Cell("fifo-a").Metrics["gpu_hours_t4"]
	if st.N != 2 || st.Mean != rep.Summary.Cell("fifo-a").Metrics["gpu_hours"].Mean {
		t.Errorf("gpu_hours_t4 of fifo-a: %+v", st)
	}
	if r := rep.Summary.Ratios[0]; r.Stat.N != 2 {
		t.Errorf("ratio over set a: %+v", r.Stat)
	}
	prep, err := figures.Plot(e, mustRuns(t, out, e), filepath.Join(out, "plots"), figures.PlotOptions{Formats: []string{"svg"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(prep.Files) != 2 || len(prep.Skipped) != 0 {
		t.Errorf("plots %v, skipped %v", prep.Files, prep.Skipped)
	}
	svg := string(mustRead(t, filepath.Join(out, "plots", "bars.svg")))
	for _, s := range []string{"FIFO", "Tiresias", "95 % CI"} {
		if !strings.Contains(svg, s) {
			t.Errorf("bars.svg lacks %q", s)
		}
	}
}

func mustRuns(t *testing.T, dir string, e *experiments.Experiment) []*results.RunResult {
	t.Helper()
	runs, missing, err := sweep.LoadRuns(dir, e)
	if err != nil || len(missing) > 0 {
		t.Fatalf("runs: %v, missing %v", err, missing)
	}
	return runs
}

// TestWorkloadSetsRefused: a sweep on named sets refuses, before running
// anything, inputs without the sets' files or without tables for the
// cluster's GPU types, in one line that repeats the experiment's inputs.
func TestWorkloadSetsRefused(t *testing.T) {
	e, err := experiments.ParseExperiment([]byte(setExperiment), "sets", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Compact()
	// T4 alone: without the built-in per-type models, so that an A100
	// cluster has no tables.
	for _, a := range set.Apps {
		a.ByType = nil
	}
	full := t.TempDir()
	writeSets(t, full, set)
	partial := t.TempDir()
	writeSets(t, partial, set)
	os.Remove(filepath.Join(partial, "a", "workload-2.csv"))
	for _, tc := range []struct {
		workloads, want string
		exp             string
	}{
		{"", "experiment sets reads workload sets a/, b/ from --workloads DIR, none given; experiment sets needs --workloads W with a/ and b/", setExperiment},
		{sweep.GeneratedWorkloads, "none given", setExperiment},
		{partial, "has no file " + filepath.Join("a", "workload-2.csv") + " (experiment sets reads sets a/, b/); experiment sets needs --workloads W", setExperiment},
		{full, "--profiles compact has no tables for GPU type a100 (cell fifo-a, cluster t4:2x4,a100:1x8); experiment sets needs", strings.Replace(setExperiment, "t4:1x8", "a100:1x8", 1)},
	} {
		e, err = experiments.ParseExperiment([]byte(tc.exp), "sets", intree.Extensions())
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		_, err := sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: set, ProfilesID: "compact", Workloads: tc.workloads, Out: out, Version: "test"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--workloads %q: error %v, want one line containing %q", tc.workloads, err, tc.want)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("--workloads %q: the refused sweep wrote %d entries", tc.workloads, len(entries))
		}
	}
}

func TestWorkloadSetsSpecErrors(t *testing.T) {
	base := `{"name": "x", "version": 1, "workloads": {"sets": [{"name": "a"}, {"name": "b", "count": 3}]}, "cells": [%s]%s}`
	for _, tc := range []struct{ cells, rest, want string }{
		{`{"name": "c", "policy": "fifo", "workload": {"set": "z"}}`, "", `unknown set "z" (the experiment's workloads.sets: a, b)`},
		{`{"name": "c", "policy": "fifo", "workload": {"set": "a", "load": 2}}`, "", `set "a" excludes load`},
		{`{"name": "c", "policy": "fifo", "workload": {"set": "a"}}, {"name": "d", "policy": "fifo", "workload": {"set": "b"}}`,
			`, "ratios": [{"name": "r", "num": "c", "den": "d", "metric": "avg_jct_s"}]`, "run on different workload sets"},
		{`{"name": "c", "policy": "fifo", "settings": {"cluster": "t4:2x4", "nodes": 2}}`, "", "cluster (node pools) replaces nodes"},
		{`{"name": "c", "policy": "fifo"}`, `, "plots": [{"name": "p", "kind": "bars", "metric": "avg_jct_s", "groups": [{"label": "g"}], "series": [{"label": "s", "cells": ["c", "c"]}]}]`, "2 cells for 1 groups"},
		{`{"name": "c", "policy": "fifo"}`, `, "plots": [{"name": "p", "kind": "bars", "groups": [{"label": "g"}], "series": [{"label": "s", "cells": ["c"]}]}]`, `group "g": no metric`},
		{`{"name": "c", "policy": "fifo"}`, `, "plots": [{"name": "p", "kind": "bars", "metric": "avg_jct_s", "groups": [{"label": "g"}], "series": [{"label": "s", "cells": ["q"]}]}]`, `unknown cell "q"`},
	} {
		spec := fmt.Sprintf(base, tc.cells, tc.rest)
		if _, err := experiments.ParseExperiment([]byte(spec), "x", intree.Extensions()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n  error %v, want one containing %q", spec, err, tc.want)
		}
	}
	for _, spec := range []string{
		`{"name": "x", "version": 1, "workloads": {"sets": [{"name": "a", "count": 0}]}, "cells": [{"name": "c", "policy": "fifo"}]}`,
		`{"name": "x", "version": 1, "workloads": {"sets": [{"name": "a"}, {"name": "a"}]}, "cells": [{"name": "c", "policy": "fifo"}]}`,
	} {
		if _, err := experiments.ParseExperiment([]byte(spec), "x", intree.Extensions()); err == nil {
			t.Errorf("%s: accepted", spec)
		}
	}
}

// TestSiaSweepTiny runs the sia experiment on the Sia artifact's data cut
// down to one workload per set and its first 10 jobs (skipped without the
// data): every cell runs, GPU-hours per type are summarised, the plots
// draw.
func TestSiaSweepTiny(t *testing.T) {
	sia := refdata.SiaDir(t)
	if testing.Short() {
		t.Skip("short")
	}
	set, err := profiles.Load(sia)
	if err != nil {
		t.Fatal(err)
	}
	_, data, err := experiments.LoadExperiment("sia", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	wdir := t.TempDir()
	for _, s := range spec["workloads"].(map[string]any)["sets"].([]any) {
		s := s.(map[string]any)
		s["count"] = 1
		copyHead(t, filepath.Join(sia, "workloads", s["name"].(string), "workload-1.csv"), filepath.Join(wdir, s["name"].(string), "workload-1.csv"), 10)
	}
	data, _ = json.Marshal(spec)
	e, err := experiments.ParseExperiment(data, "sia", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: set, ProfilesID: "sia", Workloads: wdir, Out: out,
		Parallel: 2, NoTiming: true, Version: "test", Spec: data})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 15 || len(rep.Summary.Missing) != 0 {
		t.Fatalf("ran %d, missing %v", rep.Ran, rep.Summary.Missing)
	}
	for _, c := range rep.Summary.Cells {
		for _, m := range []string{"avg_jct_s", "gpu_hours_t4", "gpu_hours_a100", "gpu_hours_rtx2080ti"} {
			if st, ok := c.Metrics[m]; !ok || st.N != 1 {
				t.Errorf("cell %s: metric %s %+v", c.Cell, m, st)
			}
		}
		if !(c.Metrics["avg_jct_s"].Mean > 0) {
			t.Errorf("cell %s: %+v", c.Cell, c.Metrics["avg_jct_s"])
		}
	}
	for _, r := range rep.Summary.Ratios {
		if r.Stat.N != 1 || !(r.Stat.Mean > 0) {
			t.Errorf("ratio %s: %+v", r.Name, r.Stat)
		}
	}
	prep, err := figures.Plot(e, mustRuns(t, out, e), filepath.Join(out, "plots"), figures.PlotOptions{Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(prep.Files) != len(e.Plots) || len(prep.Skipped) != 0 {
		t.Errorf("plots %v, skipped %v", prep.Files, prep.Skipped)
	}
}

// copyHead copies the header and the first n jobs of a workload file.
func copyHead(t *testing.T, from, to string, n int) {
	t.Helper()
	f, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for i := 0; i <= n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
