package outputs

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/sim"
)

// jobs.parquet of a run with failures has the failure columns with each
// job's figures (a job that never ran has no ETTR); a table without
// failures has none of them; a row of a run without failures in a table
// that has them is null.
func TestJobsTableFaultColumns(t *testing.T) {
	dir := t.TempDir()
	key := &RunKey{ID: "x", Policy: "fifo"}
	write := func(name string, jobs []sim.JobResult) string {
		p := filepath.Join(dir, name)
		if err := WriteTable(p, JobsTable, func(i int) JobRow { return JobRow{key, &jobs[i]} }, len(jobs), nil, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	faults := []sim.JobFaults{
		{Interruptions: 2, LostGPUSeconds: 7200, CheckpointGPUSeconds: 1800, ETTR: 0.75},
		{Interruptions: 0, LostGPUSeconds: 0, CheckpointGPUSeconds: 360, ETTR: 0.9},
	}
	jobs := []sim.JobResult{
		{Name: "a", Submit: 0, FirstStart: 10, Finish: 1000, Faults: &faults[0]},
		{Name: "b", Submit: 0, FirstStart: 20, Finish: 500, Faults: &faults[1]},
		{Name: "c", Submit: 5, FirstStart: 5, Finish: 5, Declined: "no", Faults: &sim.JobFaults{}},
		{Name: "d", Submit: 0, FirstStart: 0, Finish: 100}, // another run's, without failures
	}
	cols, err := ReadTableColumns(write("f.parquet", jobs), "interruptions", "lost_gpu_hours", "checkpoint_gpu_hours", "ettr")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{
		"interruptions":        {2, 0, 0, math.NaN()},
		"lost_gpu_hours":       {2, 0, 0, math.NaN()},
		"checkpoint_gpu_hours": {0.5, 0.1, 0, math.NaN()},
		"ettr":                 {0.75, 0.9, math.NaN(), math.NaN()},
	}
	for c, w := range want {
		for i, v := range cols.Nums[c] {
			if !(v == w[i] || math.IsNaN(v) && math.IsNaN(w[i])) {
				t.Errorf("%s of %s = %v, want %v", c, jobs[i].Name, v, w[i])
			}
		}
	}
	plain := write("p.parquet", jobs[3:])
	for c := range want {
		if _, err := ReadTableColumns(plain, c); err == nil {
			t.Errorf("a table without failures has column %s", c)
		}
	}
}

// results.parquet has the failure metrics as columns only when a run of
// the sweep had failures, null in the rows of the runs without;
// cluster.parquet has nodes_down for a run with failures (the count at
// each round, idle rounds included, from the run's record of changes)
// and not for one without.
func TestResultsAndClusterFaultColumns(t *testing.T) {
	dir := t.TempDir()
	key := &RunKey{ID: "x", Policy: "fifo"}
	spec := runspec.DefaultSpec("fifo")
	plain := &sim.Result{Summary: sim.Summary{AvgJCT: 10}}
	plain.Config.Interval = 60
	plain.RoundStats = []sim.RoundStat{{Time: 0, Active: 1}, {Time: 180, Active: 1}}
	plain.Summary.Makespan = 200
	faulty := *plain
	faulty.Summary.Faults = &sim.FaultSummary{Interruptions: 3, LostGPUHours: 1.5, Availability: 0.9, AvgETTR: 0.8}
	faulty.NodesDown = []sim.NodesDown{{Time: 30, Nodes: 1}, {Time: 60, Nodes: 2}, {Time: 150, Nodes: 0}}
	results := func(name string, res ...*sim.Result) string {
		p := filepath.Join(dir, name)
		row := func(i int) ResultRow { return ResultRow{Key: key, Settings: &spec, Data: NewRunData(res[i], true)} }
		if err := WriteTable(p, ResultsTable, row, len(res), nil, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	names := []string{"interruptions", "gpu_hours_lost", "checkpoint_gpu_hours", "avg_ettr", "node_availability"}
	for _, n := range names {
		if _, err := ReadTableColumns(results("plain.parquet", plain, plain), n); err == nil {
			t.Errorf("results.parquet without failures has column %s", n)
		}
	}
	cols, err := ReadTableColumns(results("mixed.parquet", &faulty, plain), names...)
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]float64{"interruptions": 3, "gpu_hours_lost": 1.5, "checkpoint_gpu_hours": 0, "avg_ettr": 0.8, "node_availability": 0.9} {
		if v := cols.Nums[n]; v[0] != want || !math.IsNaN(v[1]) {
			t.Errorf("%s = %v, want [%v null]", n, v, want)
		}
	}
	cluster := func(name string, res *sim.Result) string {
		p := filepath.Join(dir, name)
		rows := ClusterRows(res, true)
		row := func(i int) ClusterTableRow { return ClusterTableRow{key, 4, &rows[i]} }
		if err := WriteTable(p, ClusterTable, row, len(rows), nil, nil); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := ReadTableColumns(cluster("c.parquet", plain), "nodes_down"); err == nil {
		t.Error("cluster.parquet without failures has nodes_down")
	}
	cc, err := ReadTableColumns(cluster("cf.parquet", &faulty), "time_s", "nodes_down")
	if err != nil {
		t.Fatal(err)
	}
	// Rounds at 0, 60, 120 (idle) and 180 s: before the first fault, at
	// the second change, between, after the repair.
	if got, want := fmt.Sprint(cc.Nums["nodes_down"]), "[0 2 2 0]"; got != want {
		t.Errorf("nodes_down at %v = %s, want %s", cc.Nums["time_s"], got, want)
	}
}
