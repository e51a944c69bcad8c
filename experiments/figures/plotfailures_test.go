package figures

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/results"
)

// A failure-rate figure places each cell at log2(1 + its node failure
// rate / RSC-1's), one line per policy, leaving out the cells whose fault
// model is more than a rate; a spec giving it series is refused.
func TestFailureRateSeries(t *testing.T) {
	spec := `{"name": "f", "version": 1, "description": "d", "cells": [
		{"name": "p0", "policy": "pollux"},
		{"name": "p1", "policy": "pollux", "settings": {"failures": "rsc1"}},
		{"name": "p4", "policy": "pollux", "settings": {"failures": "rate=0.026"}},
		{"name": "t16", "policy": "tiresias", "settings": {"failures": "rsc1,rate=0.104"}},
		{"name": "t0", "policy": "tiresias", "settings": {"failures": "rate=0,ckpt=none"}},
		{"name": "dom", "policy": "tiresias", "settings": {"failures": "rate=0.1,domain=4:1"}}],
		"plots": [{"name": "x", "kind": "failure-rate", "metric": "avg_jct_s"}]}`
	exp, err := experiments.ParseExperiment([]byte(spec), "f.json", exptest.Ext())
	if err != nil {
		t.Fatal(err)
	}
	byCell := map[string][]*results.RunResult{}
	for _, c := range exp.Cells {
		byCell[c.Name] = []*results.RunResult{{}}
	}
	var got []string
	for _, s := range failureRateSeries(exp, exp.Plots[0], byCell, rsc1Rate) {
		var pts []string
		for _, p := range s.Points {
			pts = append(pts, fmt.Sprintf("%s@%.4f", p.Cell, p.X))
		}
		got = append(got, s.Label+": "+strings.Join(pts, " "))
	}
	want := []string{"pollux: p0@0.0000 p1@1.0000 p4@" + fmt.Sprintf("%.4f", math.Log2(5)), "tiresias: t0@0.0000 t16@" + fmt.Sprintf("%.4f", math.Log2(17))}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("series %q, want %q", got, want)
	}
	bad := strings.Replace(spec, `"metric": "avg_jct_s"}`, `"metric": "avg_jct_s", "series": [{"label": "a", "points": [{"x": 1, "cell": "p0"}]}]}`, 1)
	if _, err := experiments.ParseExperiment([]byte(bad), "f.json", exptest.Ext()); err == nil || !strings.Contains(err.Error(), "takes no series") {
		t.Errorf("series given: %v", err)
	}
}
