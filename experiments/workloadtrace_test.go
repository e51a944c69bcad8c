package experiments

import (
	"strings"
	"testing"
)

// TestTraceCells: a cell's workload may be sampled from a trace by name,
// with a job count or load, a configuration and a window; the spec refuses
// what cannot be sampled, and ratios pair only cells on one trace.
func TestTraceCells(t *testing.T) {
	e, err := ParseExperiment([]byte(`{"name": "x", "version": 1, "workloads": {"count": 3},
	  "cells": [
	    {"name": "a", "policy": "fifo", "workload": {"trace": "itp:cluster02", "jobs": 40}},
	    {"name": "b", "policy": "tiresias", "workload": {"trace": "itp:cluster02", "load": 0.5, "config": "realistic"}},
	    {"name": "c", "policy": "tiresias", "workload": {"trace": "itp:cluster07", "window": "daily:4-12"}},
	    {"name": "d", "policy": "tiresias"}],
	  "ratios": [{"name": "a / b", "num": "a", "den": "b", "metric": "avg_jct_s"}]}`), "x", testExt())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		cell, trace, window, config string
		jobs                        int
	}{{"a", "itp:cluster02", "", "tuned", 40}, {"b", "itp:cluster02", "", "realistic", 80}, {"c", "itp:cluster07", "daily:4-12", "tuned", 160}, {"d", "", "", "tuned", 160}} {
		c := e.Cell(want.cell)
		if c.Trace() != want.trace || c.Window() != want.window || c.Config() != want.config || c.Jobs() != want.jobs || c.Count() != 3 {
			t.Errorf("cell %s: trace %q window %q config %s, %d jobs, %d workloads; want %+v", c.Name, c.Trace(), c.Window(), c.Config(), c.Jobs(), c.Count(), want)
		}
	}
	cell := func(w string) string {
		return `{"name": "x", "version": 1, "workloads": {"sets": [{"name": "s"}]}, "cells": [{"name": "a", "policy": "fifo", "workload": ` + w + `}]}`
	}
	for _, tc := range []struct{ spec, want string }{
		{cell(`{"trace": "cluster02"}`), `workload: trace "cluster02" is not FORMAT:ARG of a registered trace format (`},
		{cell(`{"trace": "nosuch:cluster02"}`), `trace "nosuch:cluster02" is not FORMAT:ARG`},
		{cell(`{"window": "daily"}`), "window needs a trace"},
		{cell(`{"trace": "itp:cluster02", "window": "weekly"}`), `window "weekly"`},
		{cell(`{"trace": "itp:cluster02", "window": "all"}`), `window "all" replays the whole trace`},
		{cell(`{"trace": "itp:cluster02", "jobs": 4, "uniform": {"app": "cifar10"}}`), "trace excludes uniform"},
		{cell(`{"set": "s", "trace": "itp:cluster02"}`), `set "s" excludes load, config, jobs, uniform, trace and window`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo", "workload": {"trace": "itp:cluster02"}},
		  {"name": "b", "policy": "fifo", "workload": {"trace": "itp:cluster07"}}], "ratios": [{"name": "r", "num": "a", "den": "b", "metric": "avg_jct_s"}]}`,
			`ratio "r": cells "a" and "b" sample different traces ("itp:cluster02", "itp:cluster07")`},
		{`{"name": "x", "version": 1, "cells": [{"name": "a", "policy": "fifo", "workload": {"trace": "itp:cluster02"}},
		  {"name": "b", "policy": "fifo"}], "ratios": [{"name": "r", "num": "a", "den": "b", "metric": "avg_jct_s"}]}`,
			`sample different traces ("itp:cluster02", "")`},
	} {
		_, err := ParseExperiment([]byte(tc.spec), "t.json", testExt())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n  error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}

// TestITPExperimentSpec: the itp experiment compares the seven policies on
// the paper's Philly workloads and on three ITP clusters, each on the
// cluster `trace summarize` suggests (16, 25 and 48 nodes of 4 GPUs) with
// the paper's 160 jobs per 64 GPUs, and its ratios stay within a group.
func TestITPExperimentSpec(t *testing.T) {
	e, _, err := LoadExperiment("itp", testExt())
	if err != nil {
		t.Fatal(err)
	}
	groups := map[string]struct {
		trace       string
		nodes, jobs int
	}{"philly": {"", 16, 160}, "itp02": {"itp:cluster02", 16, 160}, "itp07": {"itp:cluster07", 25, 250}, "itp04": {"itp:cluster04", 48, 480}}
	policies := map[string]int{}
	for i := range e.Cells {
		c := &e.Cells[i]
		g := c.Name[strings.LastIndex(c.Name, "-")+1:]
		want, ok := groups[g]
		s := c.Spec()
		if !ok || c.Trace() != want.trace || s.Nodes != want.nodes || s.GPUsPerNode != 4 || c.Jobs() != want.jobs || c.Count() != 5 {
			t.Errorf("cell %s: trace %q, %d x %d, %d jobs, %d workloads", c.Name, c.Trace(), s.Nodes, s.GPUsPerNode, c.Jobs(), c.Count())
		}
		// The paper's load per GPU: 160 jobs per 64 GPUs per 8 hours.
		if c.Jobs()*64 != 160*s.Nodes*s.GPUsPerNode {
			t.Errorf("cell %s: %d jobs on %d GPUs is not 160 per 64", c.Name, c.Jobs(), s.Nodes*s.GPUsPerNode)
		}
		policies[s.Policy]++
	}
	for _, p := range []string{"pollux", "sia", "optimus", "gavel-las", "srtf", "fifo"} {
		if policies[p] != 4 {
			t.Errorf("policy %s: %d cells, want one per group", p, policies[p])
		}
	}
	if policies["tiresias"] != 8 {
		t.Errorf("tiresias: %d cells, want 8 (tuned and realistic per group)", policies["tiresias"])
	}
	for _, r := range e.Ratios {
		if e.Cell(r.Num).Trace() != e.Cell(r.Den).Trace() {
			t.Errorf("ratio %q pairs %s with %s", r.Name, r.Num, r.Den)
		}
	}
}
