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
func (fakeOracle) TypeIterTime(string, []int, int) (float64, bool) {
	panic("optimus runs on the job's own type (IterTime)")
}
func (fakeOracle) StepTime([]int, float64) (float64, float64) {
	panic("optimus asks for whole iterations (IterTime)")
}
func (fakeOracle) CompletionEpoch(int) int {
	panic("optimus counts to the last epoch (Epochs)")
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

// linearOracle: a step costs perSample seconds per sample on each GPU, no
// synchronisation (so an iteration with accum accumulation steps costs
// accum+1 steps), and a job in its first of two epochs has rem steps left
// by the reference's count.
type linearOracle struct{ perSample, rem float64 }

var _ policies.Oracle = linearOracle{}

func (linearOracle) Epochs() int { return 2 }
func (o linearOracle) Iterations(_, epoch int) float64 {
	return [...]float64{0, o.rem}[epoch]
}
func (o linearOracle) IterTime(_ []int, local float64, accum int) float64 {
	return o.perSample * local * float64(accum+1)
}
func (linearOracle) RemainingIterations(int) float64 {
	panic("optimus must use the reference's count, not the exact one")
}
func (linearOracle) TypeIterTime(string, []int, int) (float64, bool) {
	panic("optimus runs on the job's own type (IterTime)")
}
func (linearOracle) StepTime([]int, float64) (float64, float64) {
	panic("optimus asks for whole iterations (IterTime)")
}
func (linearOracle) CompletionEpoch(int) int {
	panic("optimus counts to the last epoch (Epochs)")
}

func job(name string, rem float64, maxGPUs int, alloc []int) policies.Job {
	return policies.Job{
		Name: name, App: "x", Alloc: alloc, MaxGPUs: maxGPUs,
		Request: policies.Request{GPUs: 1, Batch: 120},
		Limits:  models.Limits{InitBatch: 120, MaxBatch: 1 << 20, MinLocal: 1, MaxLocal: 1000},
		Oracle:  linearOracle{perSample: 0.01, rem: rem},
	}
}

// TestStepTime: at batch 120, T(1) = 1.2 s (two accumulation steps of 60,
// as the reference forces on one GPU) and T(n) = 1.2/n s for n dividing
// 120.
func TestStepTime(t *testing.T) {
	j := job("a", 1, 0, nil)
	for n, want := range map[int]float64{1: 1.2, 2: 0.6, 3: 0.4, 4: 0.3, 5: 0.24} {
		if got := StepTime(&j, n, 4); got < want*(1-1e-12) || got > want*(1+1e-12) {
			t.Errorf("T(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestGreedyOrder, by hand: T(n) = 1.2/n, so the gain of job j's n+1-th
// GPU is 1.2·rem_j/(n(n+1)):
//
//	a (rem 100):  2nd 60, 3rd 20, 4th 10
//	b (rem 250):  2nd 150, 3rd 50, 4th 25, 5th 15
//	c (rem 40):   2nd 24, 3rd 8
//	d (rem 1e6, application cap 1 GPU): none
//
// On 9 GPUs each job first gets one (5 left), then the GPUs go to b (150),
// a (60), b (50), b (25), c (24): a 2, b 4, c 2, d 1; a's 3rd GPU (20)
// comes next and misses out.
func TestGreedyOrder(t *testing.T) {
	c := policies.Cluster{Nodes: 3, GPUsPerNode: 3}
	jobs := []policies.Job{job("a", 100, 0, nil), job("b", 250, 0, nil), job("c", 40, 0, nil), job("d", 1e6, 1, nil)}
	d := New().Schedule(0, c, jobs)
	want := []int{2, 4, 2, 1}
	for i, w := range want {
		if got := policies.Sum(d.Alloc[i]); got != w {
			t.Errorf("job %s: %d GPUs, want %d", jobs[i].Name, got, w)
		}
	}
	// One GPU fewer: c's 2nd (24) is the one left out.
	d = New().Schedule(0, policies.Cluster{Nodes: 1, GPUsPerNode: 8}, jobs)
	want = []int{2, 4, 1, 1}
	for i, w := range want {
		if got := policies.Sum(d.Alloc[i]); got != w {
			t.Errorf("8 GPUs: job %s: %d GPUs, want %d", jobs[i].Name, got, w)
		}
	}
}

// TestOneEachInArrivalOrder: with fewer GPUs than jobs, the first jobs in
// arrival order get one GPU each, whatever their remaining work; jobs
// whose GPU count is unchanged keep their nodes.
func TestOneEachInArrivalOrder(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 1}
	jobs := []policies.Job{job("a", 1, 0, []int{0, 1}), job("b", 5, 0, nil), job("c", 1e6, 0, nil)}
	d := New().Schedule(0, c, jobs)
	if !policies.Equal(d.Alloc[0], []int{0, 1}) || !policies.Equal(d.Alloc[1], []int{1, 0}) || policies.Sum(d.Alloc[2]) != 0 {
		t.Errorf("alloc %v, want a kept on node 1, b on node 0, c none", d.Alloc)
	}
}
