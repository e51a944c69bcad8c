package experiments

import (
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// TestEmbeddedExperiments: every named experiment parses and has the
// paper's shape.
func TestEmbeddedExperiments(t *testing.T) {
	want := map[string]int{ // runs
		"table2": 56, "table2-sia": 56, "fig7": 40, "fig8a": 96, "fig8b": 40, "fig8c": 48, "priors": 24, "ci": 15, "ci-real": 9, "fig9": 3, "table3": 2, "gavel": 48, "sia": 140, "sia-table3": 84, "itp": 160, "failures": 162, "failures-policies": 256, "deadlines": 300, "llm": 48,
	}
	names := ExperimentNames()
	if len(names) != len(want) {
		t.Errorf("experiments %v, want %d of them", names, len(want))
	}
	for _, n := range names {
		e, data, err := LoadExperiment(n, testExt())
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if e.Name != n || len(data) == 0 || e.Description == "" {
			t.Errorf("%s: name %q, %d bytes, description %q", n, e.Name, len(data), e.Description)
		}
		if got := len(e.Runs()); got != want[n] {
			t.Errorf("%s: %d runs, want %d", n, got, want[n])
		}
		for _, r := range e.Runs() {
			if !cellNameRE.MatchString(r.ID()) {
				t.Errorf("%s: run id %q is not a safe file name", n, r.ID())
			}
		}
	}
	fig8a, _, _ := LoadExperiment("fig8a", testExt())
	for load, jobs := range map[string]int{"0.5": 80, "1": 160, "1.5": 240, "2": 320} {
		c := fig8a.Cell("pollux-" + map[string]string{"0.5": "0.5", "1": "1.0", "1.5": "1.5", "2": "2.0"}[load] + "x")
		if c == nil || c.Jobs() != jobs || c.Spec().Policy != "pollux" {
			t.Errorf("fig8a pollux at %s: %+v, want %d jobs", load, c, jobs)
		}
	}
	fig8c, _, _ := LoadExperiment("fig8c", testExt())
	if s := fig8c.Cell("noavoid-50").Spec(); !strings.Contains(string(s.Options), `"no_interference_avoidance":true`) || s.Interference != 0.5 {
		t.Errorf("fig8c noavoid-50 settings %+v", s)
	}
	fig8b, _, _ := LoadExperiment("fig8b", testExt())
	def, _ := runspec.DefaultSpec("pollux").WithOptions(testExt())
	if s := fig8b.Cell("pollux-4m").Spec(); s.Interval != 240 || s.Options != def.Options || s.Nodes != 16 {
		t.Errorf("fig8b pollux-4m settings %+v", s)
	}
	t2, _, _ := LoadExperiment("table2", testExt())
	if c := t2.Cell("tiresias-realistic"); c.Config() != "realistic" || c.Reference["paper"]["avg_jct_s"] != 10080 {
		t.Errorf("table2 tiresias-realistic: config %s, reference %v", c.Config(), c.Reference)
	}
	priors, _, _ := LoadExperiment("priors", testExt())
	if !priors.Cell("offline").Spec().OfflinePriors || priors.Cell("online").Spec().OfflinePriors {
		t.Error("priors: offline_priors not set as the spec says")
	}
}

func TestParseExperimentErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "extra": 1}`, `unknown field "extra"`},
		{`{"name": "x", "version": "1", "cells": [{"name": "a", "policy": "pollux"}]}`, `experiment test.json: version: want an integer, got a string`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}, {"name": "b", "policy": "fifo", "settings": {"nodes": "2"}}]}`, `settings: nodes: want an integer, got a string`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "options": [1]}]}`, `policy pollux: options must be a JSON object: want an object, got an array`},
		{`{"name": "x", "version": 0, "cells": [{"name": "a", "policy": "pollux"}]}`, "version must be at least 1"},
		{`{"name": "x y", "version": 1, "cells": [{"name": "a", "policy": "pollux"}]}`, "name"},
		{`{"name": "x", "version": 1, "cells": []}`, "no cells"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "slurm"}]}`, `unknown policy "slurm"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}, {"name": "a", "policy": "fifo"}]}`, "appears twice"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a/b", "policy": "pollux"}]}`, "must be letters"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"intervall_s": 3}}]}`, `unknown field "intervall_s"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"policy": "fifo"}}]}`, `cell's "policy"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"interval_s": -1}}]}`, "--interval must be in (0, 1e+06] s, got -1 s"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"interval_s": 1e308}}]}`, "--interval must be in (0, 1e+06] s"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo"}], "plots": [{"name": "p", "kind": "jct_cdf"}, {"name": "p", "kind": "rho_cdf"}]}`, `plot "p": two plots have this name`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "workload": {"config": "lazy"}}]}`, `config "lazy"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "workload": {"load": -2}}]}`, "workload: load must be positive, got -2"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "reference": {"paper": {"avg_jct_s": 1}}}]}`, `source "paper"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "ratios": [{"name": "r", "num": "a", "den": "b", "metric": "avg_jct_s"}]}`, `"b" must both exist`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "ratios": [{"name": "r", "num": "a", "den": "a", "metric": "speed"}]}`, `unknown metric "speed"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "pie"}]}`, `unknown kind "pie"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "lines", "metric": "avg_jct_s"}]}`, "no series"},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "jct_cdf", "cells": ["z"]}]}`, `unknown cell "z"`},
		{`{"name": "x", "version": 1, "Cells": [{"name": "a", "policy": "pollux"}]}`, `unknown field "Cells" (keys are case-sensitive: "cells")`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "cells": [{"name": "b", "policy": "fifo"}]}`, `duplicate field "cells"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"nodes": 2, "nodes": 3}}]}`, `settings: duplicate field "nodes"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "settings": {"Nodes": 2}}]}`, `settings: unknown field "Nodes"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux", "options": {"p": 1, "p": 2}}]}`, `cells[0].options: duplicate field "p"`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "lines", "metric": "avg_jct_s", "series": [{"label": "s", "points": [{"x": 1e308, "cell": "a"}]}]}]}`, `x 1e+308 must be in [-1e+12, 1e+12]`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "lines", "metric": "avg_jct_s", "log_x": true, "series": [{"label": "s", "points": [{"x": 0, "cell": "a"}]}]}]}`, `x 0 must be positive on a log_x axis`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "pollux"}], "plots": [{"name": "p", "kind": "lines", "metric": "avg_jct_s", "scale": 1e308, "series": [{"label": "s", "points": [{"x": 1, "cell": "a"}]}]}]}`, `scale must be in [0, 1e+12]`},
		{`{"name": "x", "version": 1, "workloads": {"count": 1000000000, "jobs": 4}, "cells": [{"name": "a", "policy": "fifo"}]}`, "workloads: count must be in [1, 1000], got 1000000000"},
		{`{"name": "x", "version": 1, "workloads": {"count": 2, "jobs": 100000000}, "cells": [{"name": "a", "policy": "fifo"}]}`, "workloads: jobs must be in [1, 10000000], got 100000000"},
		{`not json`, "invalid character"},
	} {
		_, err := ParseExperiment([]byte(tc.spec), "test.json", testExt())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n  error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
	// A UTF-8 byte-order mark (an editor's) is skipped ("invalid character 'ï'").
	if _, err := ParseExperiment([]byte("\xef\xbb\xbf"+`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo"}]}`), "bom.json", testExt()); err != nil {
		t.Errorf("spec with a byte-order mark: %v", err)
	}
	if _, _, err := LoadExperiment("fig10", testExt()); err == nil || !strings.Contains(err.Error(), "unknown experiment \"fig10\" (did you mean fig7, fig8a, fig8b, fig8c or fig9? known: ci, ci-real, deadlines, failures, failures-policies, fig7") {
		t.Errorf("unknown experiment: %v", err)
	}
}

// TestCellSettingsLayering: a cell's settings are the policy's defaults,
// then the experiment's settings, then its own; its workload likewise.
func TestCellSettingsLayering(t *testing.T) {
	e, err := ParseExperiment([]byte(`{"name": "x", "version": 2,
		"settings": {"nodes": 4, "interval_s": 30},
		"workloads": {"count": 2, "jobs": 10, "config": "realistic"},
		"cells": [{"name": "a", "policy": "pollux", "settings": {"interval_s": 120}, "options": {"p": 1}, "workload": {"load": 1.5}},
		          {"name": "b", "policy": "tiresias", "workload": {"jobs": 7, "config": "tuned"}}]}`), "x", testExt())
	if err != nil {
		t.Fatal(err)
	}
	a, b := e.Cell("a"), e.Cell("b")
	want := runspec.DefaultSpec("pollux")
	want.Nodes, want.Interval = 4, 120
	want, err = want.WithOptions(testExt(), []string{"p=1"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Spec() != want || a.Jobs() != 15 || a.Config() != "realistic" || a.Load() != 1.5 {
		t.Errorf("cell a: %+v, %d jobs, %s, load %v", a.Spec(), a.Jobs(), a.Config(), a.Load())
	}
	if b.Spec().Interval != 30 || b.Spec().Nodes != 4 || b.Jobs() != 7 || b.Config() != "tuned" || !b.fixedJobs {
		t.Errorf("cell b: %+v, %d jobs, %s", b.Spec(), b.Jobs(), b.Config())
	}
	if ids := []string{e.Runs()[0].ID(), e.Runs()[3].ID()}; ids[0] != "a.w1" || ids[1] != "b.w2" {
		t.Errorf("run ids %v", ids)
	}
}

// TestStoredUnknownAutoscaler: a stored sweep whose cell names an
// autoscaler this binary lacks opens for the read-only commands, naming
// what they skip; the same spec is refused for running.
func TestStoredUnknownAutoscaler(t *testing.T) {
	spec := []byte(`{"name": "as", "version": 1, "workloads": {"count": 1},
	  "cells": [{"name": "fifo", "policy": "fifo"},
	            {"name": "scaled", "policy": "pollux", "settings": {"autoscaler": "own-scaler", "max_nodes": 32},
	             "options": {}}]}`)
	if _, err := ParseExperiment(spec, "as", testExt()); err == nil || !strings.Contains(err.Error(), "own-scaler") {
		t.Fatalf("ParseExperiment: %v, want an error naming the autoscaler", err)
	}
	e, err := ParseStoredExperiment(spec, "as", testExt())
	if err != nil {
		t.Fatalf("ParseStoredExperiment: %v", err)
	}
	sk := e.Skipped()
	if len(sk) != 1 || !strings.Contains(sk[0], `autoscaler "own-scaler" (cell scaled)`) {
		t.Errorf("Skipped = %q, want one line naming the autoscaler and its cell", sk)
	}
	for i := range e.Cells {
		c := &e.Cells[i]
		if got, want := c.OptionsResolved(), c.Name == "fifo"; got != want {
			t.Errorf("cell %s: OptionsResolved = %v, want %v", c.Name, got, want)
		}
	}
	if got := e.Cells[1].Spec().Autoscaler; got != "own-scaler" {
		t.Errorf("the cell's autoscaler is %q, want it kept", got)
	}
}
