package sweep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
	"github.com/polluxsim/polluxsim/experiments/internal/testext"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/experiments/sweep"
	"github.com/polluxsim/polluxsim/internal/parquettest"
	"github.com/polluxsim/polluxsim/profiles"
	"github.com/polluxsim/polluxsim/traces"
)

func sweepTiny(t *testing.T, opt sweep.SweepOptions) *sweep.SweepReport {
	t.Helper()
	e, _ := exptest.Tiny(t)
	rep, err := sweep.Sweep(context.Background(), e, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestMain(m *testing.M) { exptest.Main(m) }

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func cellFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, sweep.CellsDir))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			out[e.Name()] = readFile(t, filepath.Join(dir, sweep.CellsDir, e.Name()))
		}
	}
	return out
}

// TestShardsMergeEqualUnsharded: --shard 0/3, 1/3, 2/3 then merge give the
// same files as one unsharded sweep, byte for byte (no timing).
func TestShardsMergeEqualUnsharded(t *testing.T) {
	full := exptest.TinyFull(t)
	var parts []string
	total := 0
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		opt := exptest.TinyOptions(t, dir)
		opt.Shard, opt.Parallel, opt.JobRounds = sweep.Shard{i, 3}, 1, true
		rep := sweepTiny(t, opt)
		if 2*rep.Runs != len(cellFiles(t, dir)) || rep.Summary.Runs != rep.Runs || len(rep.Summary.Missing) != 20-rep.Runs {
			t.Errorf("shard %d: %d runs, %d files, summary %d runs, %d missing", i, rep.Runs, len(cellFiles(t, dir)), rep.Summary.Runs, len(rep.Summary.Missing))
		}
		total += rep.Runs
		parts = append(parts, dir)
	}
	if total != 20 {
		t.Fatalf("shards ran %d runs in all, want 20", total)
	}
	merged := t.TempDir()
	rep, err := sweep.Merge(testext.Ext(), merged, parts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 20 || len(rep.Missing) != 0 {
		t.Errorf("merge: %d runs, missing %v", rep.Runs, rep.Missing)
	}
	for _, f := range []string{sweep.ResultsFile, sweep.AppsFile, sweep.JobsFile, sweep.ClusterFile, sweep.RoundsFile, sweep.SummaryFile, sweep.ExperimentFile} {
		if !bytes.Equal(readFile(t, filepath.Join(full, f)), readFile(t, filepath.Join(merged, f))) {
			t.Errorf("%s of the merged shards differs from the unsharded sweep's", f)
		}
	}
	fa, fb := cellFiles(t, full), cellFiles(t, merged)
	if len(fa) != 40 || len(fb) != 40 { // the runs and their rounds tables
		t.Fatalf("%d and %d run files", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("run file %s differs", name)
		}
	}
	// Merging into one of the shard folders works too.
	if _, err := sweep.Merge(testext.Ext(), parts[0], parts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(full, sweep.ResultsFile)), readFile(t, filepath.Join(parts[0], sweep.ResultsFile))) {
		t.Error("merging into a shard folder gives other results")
	}
}

// TestSweepResume: a rerun skips the stored runs with the same inputs and
// redoes those missing or made from other inputs, ending with the same
// results.
func TestSweepResume(t *testing.T) {
	full := exptest.TinyFull(t)
	dir := t.TempDir()
	for name, data := range cellFiles(t, full) {
		if err := os.MkdirAll(filepath.Join(dir, sweep.CellsDir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sweep.CellsDir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One run lost, one made from other inputs, a temporary file left by a
	// killed writer.
	os.Remove(filepath.Join(dir, sweep.CellsDir, "pollux.w2.json"))
	p := filepath.Join(dir, sweep.CellsDir, "optimus.w1.json")
	rr, err := results.ReadRunResult(p)
	if err != nil {
		t.Fatal(err)
	}
	rr.Hash = "stale"
	if err := results.WriteRunResult(p, rr); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, sweep.CellsDir, ".fifo.w1.json.tmp-123"), []byte("{"), 0o644)

	var planned [2]int
	opt := exptest.TinyOptions(t, dir)
	opt.Planned = func(todo, skipped int) { planned = [2]int{todo, skipped} }
	rep := sweepTiny(t, opt)
	if rep.Ran != 2 || rep.Skipped != 18 || planned != [2]int{2, 18} {
		t.Errorf("rerun ran %d and skipped %d (planned %v), want 2 and 18", rep.Ran, rep.Skipped, planned)
	}
	for _, f := range []string{sweep.ResultsFile, sweep.AppsFile, sweep.JobsFile, sweep.ClusterFile, sweep.SummaryFile} {
		if !bytes.Equal(readFile(t, filepath.Join(full, f)), readFile(t, filepath.Join(dir, f))) {
			t.Errorf("%s after the resumed sweep differs from an uninterrupted one", f)
		}
	}
	// Nothing left to do.
	if rep := sweepTiny(t, exptest.TinyOptions(t, dir)); rep.Ran != 0 || rep.Skipped != 20 {
		t.Errorf("third run ran %d, skipped %d", rep.Ran, rep.Skipped)
	}
}

// TestSweepInterrupt: cancelling stops the sweep after the runs in
// progress; they are kept and a rerun does only the others.
func TestSweepInterrupt(t *testing.T) {
	dir := t.TempDir()
	e, _ := exptest.Tiny(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := exptest.TinyOptions(t, dir)
	opt.Parallel = 1
	opt.Progress = func(done, _ int) {
		if done == 3 {
			cancel()
		}
	}
	rep, err := sweep.Sweep(ctx, e, opt)
	if !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	files := len(cellFiles(t, dir))
	if rep.Ran < 3 || rep.Ran > 4 || files != rep.Ran {
		t.Errorf("interrupted after %d runs with %d files, want 3 (or 4 if one had started)", rep.Ran, files)
	}
	if _, err := os.Stat(filepath.Join(dir, sweep.ResultsFile)); err == nil {
		t.Error("an interrupted sweep wrote results.parquet")
	}
	rep2 := sweepTiny(t, exptest.TinyOptions(t, dir))
	if rep2.Skipped != rep.Ran || rep2.Ran != 20-rep.Ran {
		t.Errorf("rerun skipped %d and ran %d, want %d and %d", rep2.Skipped, rep2.Ran, rep.Ran, 20-rep.Ran)
	}
}

func TestSweepRejects(t *testing.T) {
	e, _ := exptest.Tiny(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		mod  func(o *sweep.SweepOptions)
		want string
	}{
		{func(o *sweep.SweepOptions) { o.Parallel = -1 }, "--parallel must be at least 1"},
		{func(o *sweep.SweepOptions) { o.Out = "" }, "--out DIR is required"},
		{func(o *sweep.SweepOptions) { o.Shard = sweep.Shard{3, 3} }, "bad shard"},
	} {
		opt := exptest.TinyOptions(t, filepath.Join(dir, "out"))
		tc.mod(&opt)
		if _, err := sweep.Sweep(context.Background(), e, opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a rejected sweep created its output folder")
	}
	// A folder holding another experiment is refused.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, sweep.ExperimentFile), []byte(`{"name": "fig8a"}`), 0o644)
	if _, err := sweep.Sweep(context.Background(), e, exptest.TinyOptions(t, other)); err == nil || !strings.Contains(err.Error(), `holds the results of experiment "fig8a"`) {
		t.Errorf("sweep into another experiment's folder: %v", err)
	}
}

func TestMergeRejects(t *testing.T) {
	full := exptest.TinyFull(t)
	// A run with other inputs in a second copy.
	dup := t.TempDir()
	os.MkdirAll(filepath.Join(dup, sweep.CellsDir), 0o755)
	os.WriteFile(filepath.Join(dup, sweep.ExperimentFile), readFile(t, filepath.Join(full, sweep.ExperimentFile)), 0o644)
	rr, err := results.ReadRunResult(filepath.Join(full, sweep.CellsDir, "fifo.w3.json"))
	if err != nil {
		t.Fatal(err)
	}
	rr.Hash = "other"
	results.WriteRunResult(filepath.Join(dup, sweep.CellsDir, "fifo.w3.json"), rr)
	if _, err := sweep.Merge(testext.Ext(), t.TempDir(), []string{full, dup}); err == nil || !strings.Contains(err.Error(), "run fifo.w3 differs") {
		t.Errorf("conflicting runs: %v", err)
	}
	// Another spec.
	spec := t.TempDir()
	os.WriteFile(filepath.Join(spec, sweep.ExperimentFile), bytes.Replace(readFile(t, filepath.Join(full, sweep.ExperimentFile)), []byte(`"version": 1`), []byte(`"version": 2`), 1), 0o644)
	if _, err := sweep.Merge(testext.Ext(), t.TempDir(), []string{full, spec}); err == nil || !strings.Contains(err.Error(), "different experiment specs") {
		t.Errorf("different specs: %v", err)
	}
	if _, err := sweep.Merge(testext.Ext(), t.TempDir(), []string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "not a sweep's output folder") {
		t.Errorf("empty folder: %v", err)
	}
}

// TestResultsTable: results.parquet has one row per run with its settings
// and metrics.
func TestResultsTable(t *testing.T) {
	full := exptest.TinyFull(t)
	tbl := parquettest.ReadTable(t, filepath.Join(full, sweep.ResultsFile))
	defer tbl.Release()
	if tbl.NumRows() != 20 {
		t.Fatalf("%d rows, want 20", tbl.NumRows())
	}
	for _, col := range []string{"run", "cell", "policy", "workload", "load", "config", "jobs", "policy_options", "interval_s",
		"interference", "offline_priors", "avg_jct_s", "p99_jct_s", "makespan_s",
		"avg_fairness_rho", "max_fairness_rho", "wall_s", "run_id"} {
		if len(tbl.Schema().FieldIndices(col)) != 1 {
			t.Errorf("no column %s", col)
		}
	}
	var runs []string
	for _, ch := range tbl.Column(tbl.Schema().FieldIndices("run")[0]).Data().Chunks() {
		runs = append(runs, parquettest.Strings(ch)...)
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r] {
			t.Errorf("run %s twice", r)
		}
		seen[r] = true
	}
	if runs[0] != "pollux.w1" || runs[19] != "fifo.w4" {
		t.Errorf("rows not in spec order: %s ... %s", runs[0], runs[19])
	}
	jobs := parquettest.Float64Column(t, tbl, "load")
	if jobs[12] != 1.5 || jobs[0] != 1 {
		t.Errorf("load column %v", jobs)
	}
	for _, w := range parquettest.Float64Column(t, tbl, "wall_s") {
		if w != 0 {
			t.Fatal("wall_s not zero with NoTiming")
		}
	}
	// The summary has each cell's workloads and the ratio.
	sum, err := sweep.ReadSweepSummary(filepath.Join(full, sweep.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	st := sum.Cell("tiresias").Metrics["avg_jct_s"]
	if st.N != 4 || st.CI95 == nil || !(st.CI95[0] < st.Mean && st.Mean < st.CI95[1]) || len(sum.Ratios) != 1 || sum.Ratios[0].Stat.N != 4 {
		t.Errorf("summary: tiresias %+v, ratios %+v", st, sum.Ratios)
	}
	if sum.Cell("tiresias").Jobs != 24 || sum.Cell("tiresias").Config != traces.ConfigRealistic {
		t.Errorf("tiresias cell: %d jobs, %s", sum.Cell("tiresias").Jobs, sum.Cell("tiresias").Config)
	}
}

// TestRunResultContent: a stored run has the per-job data and a time
// series consistent with its summary.
func TestRunResultContent(t *testing.T) {
	full := exptest.TinyFull(t)
	r, err := results.ReadRunResult(filepath.Join(full, sweep.CellsDir, "pollux.w2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs != 16 || len(r.JobResults) != 16 {
		t.Fatalf("jobs %d, %d job rows", r.Jobs, len(r.JobResults))
	}
	sum := 0.0
	for _, j := range r.JobResults {
		sum += j.JCT
	}
	if d := sum/16 - r.Summary.AvgJCT; d > 1e-6 || d < -1e-6 {
		t.Errorf("mean of job JCTs %v, summary %v", sum/16, r.Summary.AvgJCT)
	}
	active, total := 0, 0.0
	for i, c := range r.Cluster {
		if c.Round != i || c.Time != 60*float64(i) {
			t.Fatalf("cluster row %d is round %d at %v s", i, c.Round, c.Time)
		}
		if c.Active > 0 {
			active++
		}
		total += c.Duration
		if c.GPUs < 0 || c.GPUs > 64 || c.Pending > c.Active || (c.MeanEfficiency != nil && (*c.MeanEfficiency <= 0 || *c.MeanEfficiency > 1)) {
			t.Fatalf("round %d: %+v", i, c)
		}
	}
	if active != r.Summary.Rounds || math.Abs(total-r.Summary.Makespan) > 1e-6 {
		t.Errorf("%d active rounds of %d, summing to %v s (makespan %v s)", active, r.Summary.Rounds, total, r.Summary.Makespan)
	}
	if len(r.JobResults) != 16 {
		t.Errorf("%d job rows", len(r.JobResults))
	}
	if r.WorkloadSource != "generated from the embedded Philly summary: 16 jobs, seed 2, tuned" {
		t.Errorf("workload source %q", r.WorkloadSource)
	}
	var raw map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(full, sweep.CellsDir, "pollux.w2.json")), &raw); err != nil {
		t.Fatal(err)
	}
}

// TestSweepWithoutSpecBytes: a library caller that passes no spec file
// still gets a folder that merge, plot and regress can open.
func TestSweepWithoutSpecBytes(t *testing.T) {
	e, err := experiments.ParseExperiment([]byte(`{"name": "lib", "version": 3, "workloads": {"count": 2, "jobs": 4},
		"settings": {"nodes": 4}, "cells": [{"name": "f", "policy": "fifo", "settings": {"interval_s": 30}}]}`), "lib", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sweep.Sweep(context.Background(), e, sweep.SweepOptions{Profiles: profiles.Compact(), ProfilesID: "compact", Out: dir, Parallel: 1}); err != nil {
		t.Fatal(err)
	}
	back, runs, missing, err := sweep.OpenSweep(dir, testext.Ext())
	if err != nil || len(runs) != 2 || len(missing) != 0 || back.Cell("f").Spec() != e.Cell("f").Spec() {
		t.Fatalf("reopened: %v, %d runs, missing %v", err, len(runs), missing)
	}
	// A run file that is not a stored run is corrupt, never counted
	// missing or silently redone; removed, the next sweep redoes it.
	cell := filepath.Join(dir, sweep.CellsDir, "f.w2.json")
	os.WriteFile(cell, []byte("{"), 0o644)
	if _, _, _, err := sweep.OpenSweep(dir, testext.Ext()); !errors.Is(err, results.ErrCorrupt) || !strings.Contains(err.Error(), "f.w2.json: stored run corrupt: not a stored run's JSON") {
		t.Errorf("garbage run file: %v", err)
	}
	opt := sweep.SweepOptions{Profiles: profiles.Compact(), ProfilesID: "compact", Out: dir, Parallel: 1}
	if _, err := sweep.Sweep(context.Background(), e, opt); !errors.Is(err, results.ErrCorrupt) {
		t.Errorf("sweep over a garbage run file: %v", err)
	}
	os.Remove(cell)
	rep, err := sweep.Sweep(context.Background(), e, opt)
	if err != nil || rep.Ran != 1 || rep.Summary.Runs != 2 {
		t.Errorf("rerun: %v, ran %d", err, rep.Ran)
	}
}

// TestCheckSweepOutRefusesRunFolder: a sweep does not write over a run's
// folder (a summary.json without an experiment.json) or another
// experiment's; an empty or missing folder, or its own, is fine.
func TestCheckSweepOutRefusesRunFolder(t *testing.T) {
	exp, err := experiments.ParseExperiment([]byte(`{"name": "e", "version": 1, "cells": [{"name": "a", "policy": "fifo"}]}`), "e.json", testext.Ext())
	if err != nil {
		t.Fatal(err)
	}
	run, own, other := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(run, sweep.SummaryFile), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(own, sweep.ExperimentFile), []byte(`{"name": "e"}`), 0o644)
	os.WriteFile(filepath.Join(own, sweep.SummaryFile), []byte("{}"), 0o644)
	os.WriteFile(filepath.Join(other, sweep.ExperimentFile), []byte(`{"name": "f"}`), 0o644)
	for dir, refused := range map[string]bool{run: true, own: false, other: true, t.TempDir(): false, filepath.Join(t.TempDir(), "new"): false} {
		if err := sweep.CheckSweepOut(dir, exp); (err != nil) != refused {
			t.Errorf("%s: %v, want refused %v", dir, err, refused)
		}
	}
}
