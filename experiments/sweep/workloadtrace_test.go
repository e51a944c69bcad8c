package sweep_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// traceExperiment samples its workloads from the embedded ITP cluster02.
const traceExperiment = `{"name": "tr", "version": 1, "description": "trace cells", "workloads": {"count": 2},
  "cells": [
    {"name": "fifo", "policy": "fifo", "workload": {"trace": "itp:cluster02", "jobs": 12}},
    {"name": "tiresias-r", "policy": "tiresias", "workload": {"trace": "itp:cluster02", "jobs": 12, "config": "realistic", "window": "daily:0-12"}}
  ]}`

// TestTraceWorkloadsSweep: a cell on a trace runs on the workloads the
// generate: source gives for that trace, job count, configuration,
// window and seed = workload index, byte for byte; a trace that cannot be
// read stops the sweep before any run, in one line naming it.
func TestTraceWorkloadsSweep(t *testing.T) {
	e, err := experiments.ParseExperiment([]byte(traceExperiment), "tr", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	set := profiles.Default()
	out := t.TempDir()
	var notes []string
	rep, err := sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: set, ProfilesID: "embedded", Out: out,
		Parallel: 2, NoTiming: true, Version: "test", Spec: []byte(traceExperiment), Note: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 4 {
		t.Fatalf("ran %d runs, want 4", rep.Ran)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "workloads realistic: sampled from itp:cluster02 by the paper's method (window daily:0-12, workload i with seed i)") {
		t.Errorf("notes %q", notes)
	}
	for _, tc := range []struct {
		id  string
		ref string
	}{
		{"fifo.w1", "generate:trace=itp:cluster02,jobs=12,seed=1"},
		{"fifo.w2", "generate:trace=itp:cluster02,jobs=12,seed=2"},
		{"tiresias-r.w2", "generate:trace=itp:cluster02,jobs=12,seed=2,config=realistic,window=daily:0-12"},
	} {
		want, _, err := testext.Ext().ResolveWorkload(tc.ref, testext.Ext().WorkloadEnv(set, 4))
		if err != nil {
			t.Fatal(err)
		}
		r, err := results.ReadRunResult(sweep.RunPath(out, tc.id))
		if err != nil {
			t.Fatal(err)
		}
		if r.Jobs != 12 || r.WorkloadSource != want.Source {
			t.Errorf("%s: %d jobs from %q, want 12 from %q", tc.id, r.Jobs, r.WorkloadSource, want.Source)
		}
		// The run's jobs are the workload's, job for job.
		jobs := map[string]traces.Job{}
		for _, j := range want.Jobs {
			jobs[j.Name] = j
		}
		for _, j := range r.JobResults {
			w, ok := jobs[j.Name]
			if !ok || w.App != j.App || float64(w.Time) != j.Submit || w.Replicas != j.RequestGPUs || w.Batch != j.RequestBatch {
				t.Errorf("%s: job %+v, the workload's %+v", tc.id, j, w)
			}
			delete(jobs, j.Name)
		}
		if len(jobs) != 0 {
			t.Errorf("%s: %d of the workload's jobs did not run", tc.id, len(jobs))
		}
	}
	// A trace that cannot be read: one line naming it, nothing run.
	bad := strings.ReplaceAll(traceExperiment, "itp:cluster02", "itp:cluster99")
	e, err = experiments.ParseExperiment([]byte(bad), "tr", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	out2 := t.TempDir()
	_, err = sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: set, ProfilesID: "embedded", Out: out2, Parallel: 1, NoTiming: true, Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "cluster99") || strings.Contains(err.Error(), "\n") {
		t.Errorf("itp:cluster99: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(out2, sweep.CellsDir)); len(ents) != 0 {
		t.Errorf("a refused sweep ran %d runs", len(ents))
	}
}
