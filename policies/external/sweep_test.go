package external_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/profiles"
)

// sweepOf runs a sweep of one cell named "c" (policy and options as
// given) over the first n reference workloads, two runs at a time (one
// policy process each), keeping every run's rounds; it returns the
// sweep's folder.
func sweepOf(t *testing.T, n int, policy string, options map[string]string) string {
	t.Helper()
	cell := map[string]any{"name": "c", "policy": policy}
	if options != nil {
		cell["options"] = options
	}
	spec, err := json.Marshal(map[string]any{"name": "parity", "version": 1, "workloads": map[string]int{"count": n},
		"cells": []any{cell}})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := experiments.ParseExperiment(spec, "parity", intree.Extensions())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), policy)
	set := profiles.Default()
	if _, err := sweep.Sweep(context.Background(), exp, sweep.SweepOptions{Profiles: set, ProfilesID: set.Digest, Out: dir,
		Parallel: 2, NoTiming: true, JobRounds: true, Version: "test", Spec: spec}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSweepSpecMatchesGo: a sweep spec whose cell is the Python Tiresias
// (policy external, option command) gives the sweep tables of the same
// cell under the Go Tiresias, column for column but the runs' identity,
// on the eight reference workloads (-short: three).
func TestSweepSpecMatchesGo(t *testing.T) {
	n := 8
	if testing.Short() {
		n = 3
	}
	py := sweepOf(t, n, "external", map[string]string{"command": example(t, "tiresias")})
	goDir := sweepOf(t, n, "tiresias", nil)
	for _, f := range []string{"jobs.parquet", "rounds.parquet", "results.parquet"} {
		sameTables(t, "sweep "+f, filepath.Join(goDir, f), filepath.Join(py, f))
	}
	res := parquettest.ReadTable(t, filepath.Join(py, "results.parquet"))
	defer res.Release()
	if res.NumRows() != int64(n) {
		t.Errorf("results.parquet has %d rows, want %d runs", res.NumRows(), n)
	}
	for _, f := range res.Schema().Fields() {
		if identityColumns[f.Name] {
			t.Logf("identity column %s", f.Name)
		}
	}
}
