package sweep_test

import (
	"context"
	"fmt"
	"os"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/profiles"
)

// A sweep from Go: two policies on the first three reference workloads
// (160 jobs each, embedded; FIFO's head-of-line blocking costs there), stored
// under a folder (resumable, as `polluxsim sweep` does), summarised per
// cell with a paired ratio.
func ExampleSweep() {
	spec := []byte(`{
	  "name": "example", "version": 1,
	  "description": "Tiresias against FIFO on three reference workloads",
	  "workloads": {"count": 3},
	  "cells": [
	    {"name": "tiresias", "policy": "tiresias"},
	    {"name": "fifo", "policy": "fifo"}
	  ],
	  "ratios": [{"name": "Tiresias / FIFO", "num": "tiresias", "den": "fifo", "metric": "avg_jct_s"}]
	}`)
	exp, err := experiments.ParseExperiment(spec, "example", testext.Ext())
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "example-sweep-")
	defer os.RemoveAll(dir)
	set := profiles.Default()
	rep, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{
		Profiles: set, ProfilesID: set.Digest, Out: dir, Parallel: 2, NoTiming: true, Version: "example", Spec: spec})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d runs; cells:", rep.Ran)
	for _, c := range rep.Summary.Cells {
		fmt.Printf(" %s (%d workloads)", c.Cell, c.Metrics["avg_jct_s"].N)
	}
	r := rep.Summary.Ratios[0]
	fmt.Printf("\n%s over %d workloads, below 1: %v\n", r.Name, r.Stat.N, r.Stat.Mean < 1)
	// Output:
	// 6 runs; cells: tiresias (3 workloads) fifo (3 workloads)
	// Tiresias / FIFO over 3 workloads, below 1: true
}
