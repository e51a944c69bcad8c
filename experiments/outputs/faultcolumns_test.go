package outputs

import (
	"math"
	"path/filepath"
	"testing"

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
