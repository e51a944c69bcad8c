package sweep

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/sim"
	"github.com/polluxsim/polluxsim/traces"
)

// TestEmbeddedReferenceBaselines: with nothing but the binary's embedded
// data (the default profiles and the paper:N workloads), Tiresias and
// Optimus+Oracle in step mode reproduce the reference simulator's
// published means as TestReferenceBaselines does from a folder.
func TestEmbeddedReferenceBaselines(t *testing.T) {
	set := profiles.Default()
	for _, tc := range []struct {
		policy string
		tol    float64
	}{{"tiresias", 0.02}, {"optimus", 0.03}} {
		spec := runspec.DefaultSpec(tc.policy)
		spec.Step = true
		var sum float64
		for n := 1; n <= traces.PaperWorkloads; n++ {
			w, _, err := traces.ReadPaper(traces.PaperName(traces.ConfigTuned, n), traces.ReadOptions{Apps: set.Names()})
			if err != nil {
				t.Fatal(err)
			}
			p, err := runspec.NewPolicy(testext.Ext(), spec)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(spec.SimConfig(), set, w, p)
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 && tc.policy == "tiresias" && math.Abs(res.Summary.AvgJCT/2474-1) > tc.tol {
				t.Errorf("tiresias paper:1 %.1f s, want the reference's 2474 s ± 2 %%", res.Summary.AvgJCT)
			}
			sum += res.Summary.AvgJCT
		}
		m, want := sum/traces.PaperWorkloads, referenceMeans[tc.policy]
		t.Logf("%s: mean %.1f s vs reference %.1f s (%+.2f%%)", tc.policy, m, want, 100*(m/want-1))
		if math.Abs(m/want-1) > tc.tol {
			t.Errorf("%s mean avg JCT %.1f s, want %.1f s ± %.0f%%", tc.policy, m, want, 100*tc.tol)
		}
	}
}

// TestWorkloadStoreEmbedded: without --workloads, 160-job cells at 1.0×
// load read the embedded reference workloads (both configurations);
// other sizes and loads, and "generated", are generated.
func TestWorkloadStoreEmbedded(t *testing.T) {
	set := profiles.Compact()
	e, err := experiments.ParseExperiment([]byte(`{"name": "x", "version": 1, "workloads": {"count": 9}, "cells": [
		{"name": "tuned", "policy": "fifo"},
		{"name": "real", "policy": "fifo", "workload": {"config": "realistic"}},
		{"name": "half", "policy": "fifo", "workload": {"load": 0.5}},
		{"name": "fixed", "policy": "fifo", "workload": {"jobs": 160}}]}`), "x", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	st := newWorkloadStore(testext.Ext(), nil, "", set)
	for _, tc := range []struct {
		cell  string
		index int
		desc  string
		jobs  int
	}{
		{"tuned", 3, "paper:3", 160},
		{"real", 8, "paper-realistic:8", 160},
		{"tuned", 9, "generated from the embedded Philly summary: 160 jobs, seed 9, tuned", 160},
		{"half", 1, "generated from the embedded Philly summary: 80 jobs, seed 1, tuned", 80},
		{"fixed", 1, "generated from the embedded Philly summary: 160 jobs, seed 1, tuned", 160},
	} {
		w, err := st.get(e.Cell(tc.cell), tc.index)
		if err != nil {
			t.Fatal(err)
		}
		if w.desc != tc.desc || len(w.w.Jobs) != tc.jobs {
			t.Errorf("%s %d: %d jobs from %q, want %d from %q", tc.cell, tc.index, len(w.w.Jobs), w.desc, tc.jobs, tc.desc)
		}
	}
	ref, _, err := traces.ReadPaper("paper:3", traces.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := st.get(e.Cell("tuned"), 3); fmt.Sprint(w.w.Jobs) != fmt.Sprint(ref.Jobs) {
		t.Error("workload 3 is not paper:3")
	}
	// One identity: the sweep's workload 3 and run's --workload paper:3
	// have the same source and content digest.
	var buf bytes.Buffer
	if err := traces.Write(&buf, ref); err != nil {
		t.Fatal(err)
	}
	if w, _ := st.get(e.Cell("tuned"), 3); w.desc != ref.Source || outputs.WorkloadDigest(w.csv) != outputs.WorkloadDigest(buf.Bytes()) {
		t.Errorf("sweep workload 3 is %q digest %s, run's paper:3 %q digest %s", w.desc, outputs.WorkloadDigest(w.csv), ref.Source, outputs.WorkloadDigest(buf.Bytes()))
	}
	if !strings.Contains(strings.Join(st.noteLog, "\n"), "embedded reference workloads") {
		t.Errorf("notes %v", st.noteLog)
	}
	gen := newWorkloadStore(testext.Ext(), nil, GeneratedWorkloads, set)
	if w, err := gen.get(e.Cell("tuned"), 3); err != nil || !strings.HasPrefix(w.desc, "generated") {
		t.Errorf("generated: %v %v", w, err)
	}
}
