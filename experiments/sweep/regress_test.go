package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
)

func testSummary() *SweepSummary {
	return &SweepSummary{Experiment: "x", Version: 2, Cells: []CellSummary{
		{Cell: "a", Metrics: map[string]results.Stat{"avg_jct_s": results.Describe([]int{1, 2}, []float64{990, 1010}), "p99_jct_s": results.Describe([]int{1, 2}, []float64{5000, 5000})}},
		{Cell: "b", Metrics: map[string]results.Stat{"avg_jct_s": results.Describe([]int{1, 2}, []float64{1900, 2100})}},
		{Cell: "c", Metrics: map[string]results.Stat{}},
	}}
}

func TestRegress(t *testing.T) {
	b := &Baseline{Experiment: "x", Version: 2, Tolerance: 0.05, Cells: []BaselineCell{
		{Cell: "a", Expected: 1040},                          // -3.8 %: ok at 5 %
		{Cell: "a", Metric: "p99_jct_s", Expected: 4000},     // +25 %: drift
		{Cell: "b", Expected: 2100, Tolerance: 0.01},         // -4.8 % at 1 %: drift
		{Cell: "c", Expected: 1},                             // no results
		{Cell: "zzz", Expected: 1},                           // no such cell
		{Cell: "b", Metric: "avg_jct_s", Expected: 2000.001}, // ok
	}}
	checks, err := Regress(outputs.Metrics{}, b, testSummary(), []string{"embedded"})
	if err != nil {
		t.Fatal(err)
	}
	ok := []bool{true, false, false, false, false, true}
	for i, c := range checks {
		if c.OK != ok[i] {
			t.Errorf("check %d (%s %s): ok %v, want %v (%+v)", i, c.Cell, c.Metric, c.OK, ok[i], c)
		}
	}
	// A longer JCT is worse, a shorter one better (Metric.HigherIsBetter).
	if !checks[1].Worse || checks[2].Worse {
		t.Errorf("worse: %v %v", checks[1].Worse, checks[2].Worse)
	}
	if !checks[3].Missing || !checks[4].Missing || checks[1].Missing {
		t.Error("missing flags wrong")
	}
	failed := Failed(checks)
	if len(failed) != 4 || !strings.HasPrefix(failed[0], "a p99_jct_s: 5000, expected 4000 (+25.00%, tolerance ±5.00%)") ||
		!strings.HasPrefix(failed[1], "b avg_jct_s") || failed[2] != "c avg_jct_s: no results" {
		t.Errorf("failed: %q", failed)
	}
	// Against an expected 0 the drift is absolute, not a percentage.
	zero := &Baseline{Experiment: "x", Version: 2, Tolerance: 0.05, Cells: []BaselineCell{{Cell: "a", Expected: 0}}}
	zc, err := Regress(outputs.Metrics{}, zero, testSummary(), nil)
	if f := Failed(zc); err != nil || len(f) != 1 || !strings.Contains(f[0], "expected 0 (+1000 absolute, tolerance ±0.05)") {
		t.Errorf("drift against 0: %q %v", f, err)
	}
	// Another experiment, version or profiles is an error, not a pass.
	b.ProfilesID = "abc"
	if _, err := Regress(outputs.Metrics{}, b, testSummary(), []string{"embedded"}); err == nil || !strings.Contains(err.Error(), "profiles abc") {
		t.Errorf("profiles mismatch: %v", err)
	}
	b.ProfilesID, b.Version = "", 1
	if _, err := Regress(outputs.Metrics{}, b, testSummary(), nil); err == nil || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("version mismatch: %v", err)
	}
}

func TestBaselineFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.json")
	b, err := UpdateBaseline(nil, testSummary(), "embedded")
	if err == nil || !strings.Contains(err.Error(), "no results for cells c") {
		t.Fatalf("update with a cell without results: %v", err)
	}
	s := testSummary()
	s.Cells = s.Cells[:2]
	if b, err = UpdateBaseline(nil, s, "embedded"); err != nil {
		t.Fatal(err)
	}
	if len(b.Cells) != 2 || b.Cells[0].Expected != 1000 || b.Cells[1].Expected != 2000 || b.ProfilesID != "embedded" || b.Tolerance != 0.02 {
		t.Fatalf("new baseline %+v", b)
	}
	b.Description = "a & b"
	if err := WriteBaseline(p, b); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), `{"cell": "a", "expected": 1000},`) || !strings.Contains(string(data), "a & b") {
		t.Errorf("baseline layout:\n%s", data)
	}
	back, err := ReadBaseline(outputs.Metrics{}, p)
	if err != nil || len(back.Cells) != 2 || back.Cells[1].Expected != 2000 {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	checks, err := Regress(outputs.Metrics{}, back, s, []string{"embedded"})
	if err != nil || len(Failed(checks)) != 0 {
		t.Errorf("a fresh baseline fails its own results: %v %v", err, Failed(checks))
	}
	os.WriteFile(p, []byte(`{"experiment": "x", "version": 1, "cells": [{"cell": "a", "expected": 1, "tolerence": 0.1}]}`), 0o644)
	if _, err := ReadBaseline(outputs.Metrics{}, p); err == nil || !strings.Contains(err.Error(), `unknown field "tolerence"`) {
		t.Errorf("typo in a baseline: %v", err)
	}
	for body, want := range map[string]string{
		// A negative tolerance became the baseline's ±0.5 %.
		`{"experiment": "x", "version": 1, "tolerance": 0.005, "cells": [{"cell": "a", "expected": 1, "tolerance": -1}]}`: "cell a: tolerance -1 must not be negative",
		`{"experiment": "x", "version": 1, "cells": [{"cell": "a", "expected": 1}]} garbage`:                              "unexpected data after the JSON value",
		`{"experiment": "x", "version": 1, "cells": [{"cell": "a", "expected": 1, "Tolerance": 0.1}]}`:                    `unknown field "Tolerance" (keys are case-sensitive: "tolerance")`,
		`{"experiment": "x", "version": 1, "cells": [{"cell": "a", "expected": 1, "expected": 2}]}`:                       `duplicate field "expected"`,
	} {
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := ReadBaseline(outputs.Metrics{}, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	os.WriteFile(p, []byte(`{"experiment": "x", "version": 1, "cells": [{"cell": "a", "metric": "speed", "expected": 1}]}`), 0o644)
	if _, err := ReadBaseline(outputs.Metrics{}, p); err == nil || !strings.Contains(err.Error(), `unknown metric "speed"`) {
		t.Errorf("unknown metric: %v", err)
	}
	// The shipped baselines parse and name cells of their experiments.
	for _, name := range []string{"ci", "ci-real"} {
		b, err := ReadBaseline(outputs.Metrics{}, filepath.Join("..", "baselines", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		e, _, err := experiments.LoadExperiment(name, testext.Ext())
		if err != nil {
			t.Fatal(err)
		}
		if b.Experiment != e.Name || b.Version != e.Version || b.ProfilesID == "" {
			t.Errorf("%s: baseline of %s version %d, profiles %q", name, b.Experiment, b.Version, b.ProfilesID)
		}
		for _, c := range b.Cells {
			if e.Cell(c.Cell) == nil || c.Expected <= 0 {
				t.Errorf("%s: baseline cell %+v", name, c)
			}
		}
	}
}
