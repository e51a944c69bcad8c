package pollux

import (
	"math"
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// Hand-checked ranks and crowding distances on five points (fitness,
// utility): three on the front, one dominated once, one dominated by all.
func TestRankAndCrowd(t *testing.T) {
	pop := []individual{
		{fit: 1, util: 5, hash: 0},   // front 0, extreme
		{fit: 2, util: 4, hash: 1},   // front 0, middle
		{fit: 4, util: 1, hash: 2},   // front 0, extreme
		{fit: 1.5, util: 3, hash: 3}, // dominated by 1 only: front 1
		{fit: 0.5, util: 0.5, hash: 4},
	}
	rankAndCrowd(pop)
	var order []uint64
	for _, p := range pop {
		order = append(order, p.hash)
	}
	// Front 0 by crowding: the two extremes (+Inf, stable order), then 1.
	if want := []uint64{0, 2, 1, 3, 4}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	if pop[2].rank != 0 || pop[3].rank != 1 || pop[4].rank != 2 {
		t.Errorf("ranks %d %d %d, want 0 1 2", pop[2].rank, pop[3].rank, pop[4].rank)
	}
	// Point 1: fitness neighbours 1 and 4 over the range 3, utility
	// neighbours 1 and 5 over the range 4: 1 + 1.
	if got := pop[2].crowd; math.Abs(got-2) > 1e-12 {
		t.Errorf("crowding of the middle point %v, want 2", got)
	}
	if !math.IsInf(pop[0].crowd, 1) || !math.IsInf(pop[1].crowd, 1) {
		t.Errorf("extremes' crowding %v %v, want +Inf", pop[0].crowd, pop[1].crowd)
	}
	bestFirst(pop)
	if pop[0].hash != 2 || pop[1].hash != 0 {
		t.Errorf("best first: %v then %v", pop[0].hash, pop[1].hash)
	}
}

// The utility is the speedups' sum over the GPUs of the nodes in use.
func TestUtilityClosedForm(t *testing.T) {
	c := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	jobs := testJobs(3, c.Nodes, 7)
	for i := range jobs {
		jobs[i].Alloc, jobs[i].Params = nil, nil // linear speedup k / fair share
	}
	pr := newProblem(c, jobs, len(jobs), DefaultOptions(), nil)
	// Job 0: 2 GPUs on node 0; job 1: 1 + 1 GPU on nodes 0 and 2; job 2 none.
	st := fromDense([]int{2, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}, 3, c.Nodes)
	want := (pr.speed[0].At(1, 2) + pr.speed[1].At(2, 2)) / 8
	if got := pr.utility(&st); math.Abs(got-want) > 1e-12 || !(want > 0) {
		t.Errorf("utility %v, want %v", got, want)
	}
}

// With the option, the search is still seeded and deterministic, feasible,
// and never worse than keeping the current allocation.
func TestNSGA2SearchFeasibleAndDeterministic(t *testing.T) {
	c := policies.Cluster{Nodes: 16, GPUsPerNode: 4}
	jobs := testJobs(30, c.Nodes, 43)
	opt := ReferenceOptions()
	opt.Generations, opt.NSGA2, opt.Seed = 20, true, 3
	p1, p2 := New(opt), New(opt)
	d1, d2 := p1.Schedule(0, c, jobs), p2.Schedule(0, c, jobs)
	if !reflect.DeepEqual(d1, d2) {
		t.Fatal("same seed, different decisions")
	}
	pr, _ := sortedProblem(c, jobs, opt)
	dense := make([]int, len(jobs)*c.Nodes)
	for k, i := range order(jobs) {
		copy(dense[k*c.Nodes:], d1.Alloc[i])
	}
	st := fromDense(dense, len(jobs), c.Nodes)
	if !pr.feasible(&st) || math.Abs(pr.fitness(&st)-p1.PolicyStats().Fitness) > 1e-12 {
		t.Errorf("decision infeasible or fitness mismatch")
	}
	if base := pr.fitness(&pr.base); p1.PolicyStats().Fitness < base {
		t.Errorf("fitness %v below the current allocation's %v", p1.PolicyStats().Fitness, base)
	}
}
