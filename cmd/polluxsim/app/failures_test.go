package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/outputs"
)

// --failures through the binary: a fault log with a bad row and a rate
// under which a job cannot get through its restart are one-line refusals
// that write nothing; a preset runs and reports its figures in
// summary.json, the same for the same seed.
func TestCLIFailures(t *testing.T) {
	polluxsimBinary(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("time,node,duration\n1,0,5\n2,x,5\n"), 0o644)
	oneLineError(t, runBinary(t, dir, nil, "run", "--quiet", "--workload", "paper:1", "--failures", "bad.csv", "--out", "o1"),
		`bad.csv:3: column "node": want a node number from 0, got "x"`)
	os.WriteFile(filepath.Join(dir, "header.csv"), []byte("time,node,duration\n"), 0o644)
	oneLineError(t, runBinary(t, dir, nil, "run", "--quiet", "--workload", "paper:1", "--failures", "header.csv", "--out", "o1"),
		`header.csv:2: no fault events: the file has a header only`)
	oneLineError(t, runBinary(t, dir, nil, "run", "--quiet", "--policy", "fifo", "--workload", "paper:1", "--failures", "rate=1000", "--out", "o2"),
		"would fail every 28.8 s on average (1000 failures per node-day), less than its 30 s restart cost")
	oneLineError(t, runBinary(t, dir, nil, "run", "--quiet", "--failures", "rate=5000", "--out", "o3"), "--failures: rate must be in [0, 1440]")
	for _, out := range []string{"o1", "o2", "o3"} {
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			t.Errorf("a refused run wrote %s", out)
		}
	}
	var sums [2]map[string]any
	for i, out := range []string{"a", "b"} {
		r := runBinary(t, dir, nil, "run", "--quiet", "--no-timing", "--policy", "tiresias", "--workload", "paper:1", "--failures", "rsc1,rate=1", "--out", out)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &sums[i]); err != nil {
			t.Fatal(err)
		}
	}
	s := sums[0]
	for _, k := range []string{"interruptions", "gpu_hours_lost", "checkpoint_gpu_hours", "avg_ettr", "node_availability"} {
		v, ok := s[k].(float64)
		if !ok || !(v > 0) {
			t.Errorf("summary.json %s = %v, want a positive number", k, s[k])
		}
	}
	if a, ok := s["node_availability"].(float64); !ok || a >= 1 {
		t.Errorf("node availability %v, want below 1", s["node_availability"])
	}
	if sums[0]["avg_jct_s"] != sums[1]["avg_jct_s"] || sums[0]["interruptions"] != sums[1]["interruptions"] {
		t.Errorf("two runs with the same seed differ: %v, %v", sums[0]["avg_jct_s"], sums[1]["avg_jct_s"])
	}
	jobFaultColumns(t, filepath.Join(dir, "a"), s)
	r := runBinary(t, dir, nil, "run", "--quiet", "--no-timing", "--policy", "tiresias", "--workload", "paper:1", "--out", "none")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, c := range failureColumns {
		if _, err := outputs.ReadTableColumns(filepath.Join(dir, "none", "jobs.parquet"), c); err == nil {
			t.Errorf("jobs.parquet of a run without failures has column %s", c)
		}
	}
}

var failureColumns = []string{"interruptions", "lost_gpu_hours", "checkpoint_gpu_hours", "ettr"}

// jobFaultColumns checks the failure columns of run dir's jobs.parquet
// against the run's summary.json (sum): the interruptions add up to the
// run's, the lost and checkpoint GPU-hours to its, the ETTRs average to
// its (every job of these runs ran), and some job was interrupted.
func jobFaultColumns(t *testing.T, dir string, sum map[string]any) {
	t.Helper()
	cols, err := outputs.ReadTableColumns(filepath.Join(dir, "jobs.parquet"), failureColumns...)
	if err != nil {
		t.Fatal(err)
	}
	total := map[string]float64{}
	for _, c := range failureColumns {
		for _, v := range cols.Nums[c] {
			if math.IsNaN(v) || v < 0 {
				t.Fatalf("%s has %v", c, v)
			}
			total[c] += v
		}
	}
	total["ettr"] /= float64(cols.Rows)
	for c, k := range map[string]string{"interruptions": "interruptions", "lost_gpu_hours": "gpu_hours_lost", "checkpoint_gpu_hours": "checkpoint_gpu_hours", "ettr": "avg_ettr"} {
		w, _ := sum[k].(float64)
		if math.Abs(total[c]-w) > 1e-9*math.Max(1, w) {
			t.Errorf("jobs.parquet's %s add up to %v, summary.json's %s is %v", c, total[c], k, w)
		}
	}
	if total["interruptions"] == 0 {
		t.Error("no job was interrupted")
	}
}
