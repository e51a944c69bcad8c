package srtf

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// linearOracle: an iteration takes 1 s on any placement plus 1 s per
// accumulation step, so a job's remaining GPU-time is iterations × GPUs
// (× 2 on one GPU, which accumulates once at least).
type linearOracle struct{ iters float64 }

var _ policies.Oracle = linearOracle{}

func (o linearOracle) RemainingIterations(int) float64 { return o.iters }
func (linearOracle) Epochs() int                       { return 1 }
func (o linearOracle) Iterations(int, int) float64     { return o.iters }
func (linearOracle) IterTime(_ []int, _ float64, accum int) float64 {
	return 1 + float64(accum)
}
func (linearOracle) TypeIterTime(string, []int, int) (float64, bool) {
	panic("srtf runs on the job's own type (IterTime)")
}
func (linearOracle) StepTime([]int, float64) (float64, float64) {
	panic("srtf asks for whole iterations (IterTime)")
}
func (linearOracle) CompletionEpoch(int) int { panic("srtf asks for remaining iterations") }

func job(name string, submit float64, gpus int, iters float64, alloc []int) policies.Job {
	return policies.Job{
		Name: name, App: "x", Submit: submit, Alloc: alloc,
		Request: policies.Request{GPUs: gpus, Batch: 64 * gpus},
		Limits:  models.Limits{InitBatch: 64 * gpus, MaxBatch: 1 << 20, MinLocal: 1, MaxLocal: 1 << 20},
		Oracle:  linearOracle{iters},
	}
}

// Hand-computed: remaining GPU-times a = 4×100 = 400, b = 1×500 = 500,
// c = 2×150 = 300, d = 4×50 = 200 GPU-s on 2 nodes × 4 GPUs. Order d, c,
// a, b: d (4) and c (2) run, a (4) does not fit in the 2 left, b (1)
// backfills; a, which was running, is preempted.
func TestOrderAndBackfill(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	jobs := []policies.Job{
		job("a", 0, 4, 100, []int{4, 0}),
		job("b", 1, 1, 500, nil),
		job("c", 2, 2, 150, nil),
		job("d", 3, 4, 50, nil),
	}
	d := New().Schedule(10, c, jobs)
	want := []int{0, 1, 2, 4}
	for i, w := range want {
		if got := policies.Sum(d.Alloc[i]); got != w {
			t.Errorf("job %s: %d GPUs, want %d (alloc %v)", jobs[i].Name, got, w, d.Alloc)
		}
	}
	if free := policies.FreeGPUs(c, d.Alloc); free[0] < 0 || free[1] < 0 || free[0]+free[1] != 1 {
		t.Errorf("free GPUs %v, want one left", free)
	}
}

// A running job that stays among the shortest keeps its nodes.
func TestKeepsNodes(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	jobs := []policies.Job{job("a", 0, 2, 10, []int{0, 2}), job("b", 1, 4, 100, nil)}
	d := New().Schedule(10, c, jobs)
	if !policies.Equal(d.Alloc[0], []int{0, 2}) || policies.Sum(d.Alloc[1]) != 4 {
		t.Errorf("alloc %v", d.Alloc)
	}
}

// Equal remaining work: the earlier submission goes first.
func TestTiesBySubmission(t *testing.T) {
	c := policies.Cluster{Nodes: 1, GPUsPerNode: 4}
	jobs := []policies.Job{job("late", 5, 4, 10, nil), job("early", 1, 4, 10, nil)}
	d := New().Schedule(10, c, jobs)
	if d.Alloc[0] != nil || policies.Sum(d.Alloc[1]) != 4 {
		t.Errorf("alloc %v, want the early job to run", d.Alloc)
	}
}
