package optimus

import (
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// fakeOracle: 3 epochs of 100·e optimizer steps at batch 64 (cumulative
// 100, 300, 600), and a step time of 1/k on k GPUs plus 0.5 per
// accumulation step.
type fakeOracle struct{}

var _ policies.Oracle = fakeOracle{}

func (fakeOracle) Epochs() int { return 3 }
func (fakeOracle) Iterations(batch, epoch int) float64 {
	return [...]float64{100, 300, 600}[epoch] * 64 / float64(batch)
}
func (fakeOracle) IterTime(placement []int, local float64, accum int) float64 {
	return 1/float64(policies.Sum(placement)) + 0.5*float64(accum)
}
func (fakeOracle) RemainingIterations(int) float64 {
	panic("optimus must use the reference's count, not the exact one")
}

// The reference's count is one epoch short: in epoch e it is the
// iterations by the end of the last epoch minus those by the end of e.
func TestRemainingIterationsOffByOne(t *testing.T) {
	for _, c := range []struct {
		epoch int
		want  float64
	}{{0, 500}, {1, 300}, {2, 1}} {
		j := policies.Job{Epoch: c.epoch, Request: policies.Request{Batch: 64}, Oracle: fakeOracle{}}
		if got := RemainingIterations(&j); got != c.want {
			t.Errorf("epoch %d: %v, want %v", c.epoch, got, c.want)
		}
	}
}

// StepTime splits the batch as the reference: one GPU accumulates at
// least once; 4 GPUs at 64 (16 each) do not.
func TestStepTimeSplit(t *testing.T) {
	j := policies.Job{Request: policies.Request{Batch: 64}, Oracle: fakeOracle{},
		Limits: models.Limits{InitBatch: 64, MaxBatch: 256, MinLocal: 8, MaxLocal: 32}}
	if got := StepTime(&j, 1, 4); got != 1+0.5*1 {
		t.Errorf("1 GPU: %v", got)
	}
	if got := StepTime(&j, 4, 4); got != 0.25 {
		t.Errorf("4 GPUs: %v", got)
	}
}

// Greedy order: the second GPU goes to the job whose remaining time
// shrinks most.
func TestGreedyPrefersLongerJob(t *testing.T) {
	lim := models.Limits{InitBatch: 64, MaxBatch: 256, MinLocal: 8, MaxLocal: 64}
	jobs := []policies.Job{
		{Name: "short", Epoch: 1, Request: policies.Request{Batch: 64}, Limits: lim, Oracle: fakeOracle{}},
		{Name: "long", Epoch: 0, Request: policies.Request{Batch: 64}, Limits: lim, Oracle: fakeOracle{}},
	}
	dec := New().Schedule(0, policies.Cluster{Nodes: 1, GPUsPerNode: 3}, jobs)
	if policies.Sum(dec.Alloc[0]) != 1 || policies.Sum(dec.Alloc[1]) != 2 {
		t.Errorf("allocations %v", dec.Alloc)
	}
}
