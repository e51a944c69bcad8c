package runner_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/intree"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/runner"
	"github.com/polluxsim/polluxsim/experiments/runspec"
)

// TestMixedClusterOutputs: a run on node pools of different node sizes
// names the cluster as it is everywhere (64 GPUs, its pools; 11 nodes of
// up to 8 GPUs would be 88); rounds.parquet says which type each placed
// job held, and types.parquet's rows are the per-type sums of rounds
// (every round kept) and add up to the run's GPU-hours; the workload
// paper:1 is workload 1 with its content's digest; summary.json's settings
// leave out gpus_per_node (8, the largest node's).
func TestMixedClusterOutputs(t *testing.T) {
	const pools = "t4:6x4,a100:2x8,rtx2080ti:3x8"
	spec := runspec.DefaultSpec("sia")
	spec.Cluster = pools
	spec.Nodes, spec.GPUsPerNode = 11, 8
	dir := filepath.Join(t.TempDir(), "run")
	res, err := runner.Run(context.Background(), spec, runner.Inputs{WorkloadRef: "paper:1"}, runner.Options{Ext: intree.Extensions(), Out: dir, NoTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Cluster     string         `json:"cluster"`
		ClusterGPUs int            `json:"cluster_gpus"`
		RunID       string         `json:"run_id"`
		Source      string         `json:"workload_source"`
		Digest      string         `json:"workload_digest"`
		Version     string         `json:"polluxsim_version"`
		GPUHours    float64        `json:"gpu_hours"`
		JobsByType  map[string]int `json:"jobs_by_type"`
		Settings    map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Cluster != pools || sum.ClusterGPUs != 64 || sum.RunID != res.ID || sum.Source != "paper:1" || len(sum.Digest) != 16 || sum.Version == "" {
		t.Errorf("summary.json: cluster %q of %d GPUs, run_id %q (run %q), workload %q %q, version %q", sum.Cluster, sum.ClusterGPUs, sum.RunID, res.ID, sum.Source, sum.Digest, sum.Version)
	}
	if _, ok := sum.Settings["gpus_per_node"]; ok || sum.Settings["nodes"] != 11.0 || sum.Settings["cluster"] != pools {
		t.Errorf("summary.json settings %v: want 11 nodes, the pools and no gpus_per_node (the largest node's)", sum.Settings)
	}
	if got := spec.ClusterText(); got != "64 GPUs ("+pools+")" {
		t.Errorf("summary line's cluster %q", got)
	}

	cl, err := outputs.ReadTableColumns(filepath.Join(dir, "cluster.parquet"), "cluster_gpus")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range cl.Nums["cluster_gpus"] {
		if g != 64 {
			t.Fatalf("cluster.parquet: cluster_gpus %v", g)
		}
	}

	rd, err := outputs.ReadTableColumns(filepath.Join(dir, "rounds.parquet"), "gpu_type", "gpus", "duration_s", "workload", "workload_digest")
	if err != nil {
		t.Fatal(err)
	}
	byType := map[string]float64{}
	for i := 0; i < rd.Rows; i++ {
		typ, gpus := rd.Strs["gpu_type"][i], rd.Nums["gpus"][i]
		if (typ == "") != (gpus == 0) { // "" is null
			t.Fatalf("rounds row %d: gpu_type %q with %v GPUs", i, typ, gpus)
		}
		byType[typ] += gpus * rd.Nums["duration_s"][i] / 3600
		if rd.Nums["workload"][i] != 1 || rd.Strs["workload_digest"][i] != sum.Digest {
			t.Fatalf("rounds row %d: workload %v digest %q", i, rd.Nums["workload"][i], rd.Strs["workload_digest"][i])
		}
	}

	ty, err := outputs.ReadTableColumns(filepath.Join(dir, "types.parquet"), "gpu_type", "gpus", "gpu_hours", "jobs", "cost")
	if err != nil {
		t.Fatal(err)
	}
	wantGPUs := map[string]float64{"a100": 16, "rtx2080ti": 24, "t4": 24}
	gpus, hours := 0.0, 0.0
	for i := 0; i < ty.Rows; i++ {
		typ := ty.Strs["gpu_type"][i]
		gpus += ty.Nums["gpus"][i]
		hours += ty.Nums["gpu_hours"][i]
		if ty.Nums["gpus"][i] != wantGPUs[typ] || ty.Nums["jobs"][i] != float64(sum.JobsByType[typ]) || !math.IsNaN(ty.Nums["cost"][i]) {
			t.Errorf("types.parquet %s: %v GPUs (want %v), %v jobs (summary %d), cost %v (no price: null)", typ, ty.Nums["gpus"][i], wantGPUs[typ], ty.Nums["jobs"][i], sum.JobsByType[typ], ty.Nums["cost"][i])
		}
		if d := ty.Nums["gpu_hours"][i] - byType[typ]; math.Abs(d) > 1e-9*byType[typ] {
			t.Errorf("types.parquet %s: %v GPU-hours, rounds.parquet %v", typ, ty.Nums["gpu_hours"][i], byType[typ])
		}
	}
	if ty.Rows != 3 || gpus != 64 || math.Abs(hours-sum.GPUHours) > 1e-9*hours {
		t.Errorf("types.parquet: %d rows, %v GPUs, %v GPU-hours (run: %v)", ty.Rows, gpus, hours, sum.GPUHours)
	}
}
