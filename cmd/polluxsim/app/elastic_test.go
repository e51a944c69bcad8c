package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An elastic run through the binary: the bill is in summary.json (cost =
// node-hours × price), nodes.parquet is written, and a closed loop of
// one runs its jobs one after the other.
func TestCLIElasticClosedLoopRun(t *testing.T) {
	dir := t.TempDir()
	w := workloadHeader + "a,0,cifar10,1,128\nb,0,cifar10,1,128\nc,0,cifar10,1,128\n"
	if err := os.WriteFile(filepath.Join(dir, "w.csv"), []byte(w), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, dir, nil, "run", "--quiet", "--no-timing", "--workload", "w.csv", "--nodes", "1", "--max-nodes", "4",
		"--autoscaler", "goodput", "--provision-delay", "2m", "--node-price", "2.5", "--closed-loop", "1", "--out", "out")
	if r.code != 0 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "elastic cluster (goodput):") {
		t.Errorf("stdout has no bill:\n%s", r.stdout)
	}
	outputs, _ := checkOutputs(t, filepath.Join(dir, "out"), true)
	if !strings.Contains(strings.Join(outputs, " "), "nodes.parquet") {
		t.Errorf("outputs %v: no nodes.parquet", outputs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		NodeHours float64 `json:"node_hours"`
		Cost      float64 `json:"cost"`
		Makespan  float64 `json:"makespan_s"`
		AvgJCT    float64 `json:"avg_jct_s"`
		Settings  struct {
			Autoscaler string          `json:"autoscaler"`
			Options    json.RawMessage `json:"autoscaler_options"`
			ClosedLoop int             `json:"closed_loop"`
		} `json:"settings"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if !(s.NodeHours > 0) || math.Abs(s.Cost-2.5*s.NodeHours) > 1e-9*s.Cost {
		t.Errorf("node-hours %v, cost %v", s.NodeHours, s.Cost)
	}
	// At least one node for the whole run, at most four.
	if s.NodeHours < s.Makespan/3600*(1-1e-9) || s.NodeHours > 4*s.Makespan/3600 {
		t.Errorf("node-hours %v over a makespan of %v s", s.NodeHours, s.Makespan)
	}
	if s.Settings.Autoscaler != "goodput" || s.Settings.ClosedLoop != 1 || !strings.Contains(string(s.Settings.Options), `"scale_down"`) {
		t.Errorf("settings %+v %s", s.Settings, s.Settings.Options)
	}
	// One at a time: the makespan is about three JCTs.
	if math.Abs(s.Makespan-3*s.AvgJCT) > 0.2*s.Makespan {
		t.Errorf("makespan %v with an average JCT of %v (closed loop of one)", s.Makespan, s.AvgJCT)
	}
}
