package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

// TestWorkloadStore: workloads come from the folder of their kind when it
// exists, else they are generated; each is made once.
func TestWorkloadStore(t *testing.T) {
	set := profiles.Compact()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "workloads-0.5"), 0o755)
	w, err := runspec.GenerateWorkload(nil, set, 5, 99, "tuned", 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := traces.WriteFile(filepath.Join(dir, "workloads-0.5", "workload-1.csv"), w); err != nil {
		t.Fatal(err)
	}
	e, err := experiments.ParseExperiment([]byte(`{"name": "x", "version": 1, "workloads": {"count": 2, "jobs": 20}, "cells": [
		{"name": "half", "policy": "fifo", "workload": {"load": 0.5}},
		{"name": "full", "policy": "fifo"},
		{"name": "fixed", "policy": "fifo", "workload": {"jobs": 3, "load": 0.5}}]}`), "x", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	st := newWorkloadStore(testext.Ext(), nil, dir, set)
	half, err := st.get(e.Cell("half"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(half.w.Jobs) != 5 || half.desc != "workloads-0.5/workload-1.csv" {
		t.Errorf("half: %d jobs from %q", len(half.w.Jobs), half.desc)
	}
	if _, err := st.get(e.Cell("half"), 2); err == nil || !strings.Contains(err.Error(), "workload-2.csv") {
		t.Errorf("missing file in an existing folder: %v", err)
	}
	full, err := st.get(e.Cell("full"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.w.Jobs) != 20 || !strings.HasPrefix(full.desc, "generated from the embedded Philly summary: 20 jobs, seed 2") {
		t.Errorf("full: %d jobs from %q", len(full.w.Jobs), full.desc)
	}
	again, _ := st.get(e.Cell("full"), 2)
	if again != full {
		t.Error("the same workload was made twice")
	}
	fixed, err := st.get(e.Cell("fixed"), 1)
	if err != nil || len(fixed.w.Jobs) != 3 {
		t.Errorf("fixed job count: %v", err)
	}
	if len(st.noteLog) != 2 || !strings.Contains(st.noteLog[1], "generated") {
		t.Errorf("notes %q", st.noteLog)
	}
}
