package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/profiles"
)

// Fig 9 end to end on the embedded measured profiles: the goodput-based
// autoscaler is cheaper and slower than the throughput-based one (paper:
// 25 % cheaper, 6 % longer; ours about 20 % and 23 %), the throughput-based
// one reaches the largest cluster within the first half hour, and no run
// leaves [1, 16] nodes.
func TestFig9EndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	e, _, err := experiments.LoadExperiment("fig9", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Sweep(context.Background(), e, SweepOptions{Profiles: profiles.Embedded(), ProfilesID: "embedded", Out: dir, Parallel: 2, NoTiming: true}); err != nil {
		t.Fatal(err)
	}
	runs := map[string]*results.RunResult{}
	for _, c := range []string{"goodput", "throughput", "utility-band"} {
		r, err := results.ReadRunResult(RunPath(dir, c+".w1"))
		if err != nil {
			t.Fatal(err)
		}
		runs[c] = r
		if r.Elastic == nil || len(r.Elastic.Nodes) != len(r.Elastic.Time) || r.Summary.Cost <= 0 {
			t.Fatalf("%s: %d node counts for %d rounds, cost %v", c, len(r.Elastic.Nodes), len(r.Elastic.Time), r.Summary.Cost)
		}
		for _, n := range r.Elastic.Nodes {
			if n < 1 || n > 16 {
				t.Errorf("%s: %d nodes", c, n)
			}
		}
		if want := r.Summary.NodeHours * 3.912; r.Summary.Cost < want*(1-1e-12) || r.Summary.Cost > want*(1+1e-12) {
			t.Errorf("%s: cost %v, want node-hours × price %v", c, r.Summary.Cost, want)
		}
	}
	g, th := runs["goodput"], runs["throughput"]
	cost := g.Summary.Cost / th.Summary.Cost
	slow := g.Summary.Makespan / th.Summary.Makespan
	if cost < 0.7 || cost > 0.9 || slow < 1.05 || slow > 1.35 {
		t.Errorf("goodput/throughput: cost %.3f (band 0.7-0.9), completion %.3f (band 1.05-1.35)", cost, slow)
	}
	for i, tm := range th.Elastic.Time {
		if tm <= 1800 && th.Elastic.Nodes[i] == 16 {
			break
		}
		if tm > 1800 {
			t.Errorf("throughput-based autoscaler not at 16 nodes by 30 min")
			break
		}
	}
	if g.Elastic.Nodes[len(g.Elastic.Nodes)/10] >= 16 {
		t.Errorf("goodput-based autoscaler at the maximum early")
	}
}

func TestUniformWorkloads(t *testing.T) {
	w, err := runspec.UniformWorkload(profiles.Embedded(), runspec.Uniform{App: "cifar10", GPUs: 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 3 || w.Jobs[2].Name != "cifar10-2" || w.Jobs[0].Batch != 512 || w.Jobs[0].Replicas != 4 || w.Jobs[1].Time != 0 {
		t.Errorf("workload %+v", w.Jobs)
	}
	if _, err := runspec.UniformWorkload(profiles.Embedded(), runspec.Uniform{App: "resnet"}, 3); err == nil || !strings.Contains(err.Error(), `unknown application "resnet"`) {
		t.Errorf("unknown application: %v", err)
	}
	spec := `{"name": "u", "version": 1, "cells": [{"name": "a", "policy": "fifo", "workload": {"uniform": {"app": "cifar10"}}}]}`
	if _, err := experiments.ParseExperiment([]byte(spec), "u.json", testext.Ext()); err == nil || !strings.Contains(err.Error(), `a uniform workload needs "jobs"`) {
		t.Errorf("uniform without jobs: %v", err)
	}
	huge := `{"name": "u", "version": 1, "cells": [{"name": "a", "policy": "fifo", "workload": {"jobs": 100000001, "uniform": {"app": "cifar10"}}}]}`
	if _, err := experiments.ParseExperiment([]byte(huge), "u.json", testext.Ext()); err == nil || !strings.Contains(err.Error(), "at most 100000 jobs") {
		t.Errorf("uniform with 10⁸ jobs: %v", err)
	}
	bad := `{"name": "u", "version": 1, "settings": {"autoscaler": "goodput", "autoscaler_options": {"u": 0.4}}, "cells": [{"name": "a", "policy": "pollux"}]}`
	if _, err := experiments.ParseExperiment([]byte(bad), "u.json", testext.Ext()); err == nil || !strings.Contains(err.Error(), "autoscaler goodput: u must be greater than l") {
		t.Errorf("bad autoscaler options: %v", err)
	}
}
