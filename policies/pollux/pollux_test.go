package pollux

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// testJobs builds n jobs with varied models; some have none yet.
func testJobs(n int, nodes int, seed uint64) []policies.Job {
	rng := rand.New(rand.NewPCG(seed, 1))
	jobs := make([]policies.Job, n)
	for i := range jobs {
		p := models.Params{
			AlphaC: 0.02 + 0.1*rng.Float64(), BetaC: 0.0005 + 0.005*rng.Float64(),
			AlphaR: 0.01 + 0.05*rng.Float64(), BetaR: 0.002 * rng.Float64(),
			AlphaN: 0.05 + 0.2*rng.Float64(), BetaN: 0.01 * rng.Float64(), Gamma: 1 + 2*rng.Float64(),
		}
		j := policies.Job{
			Name: "job-" + string(rune('A'+i%26)) + string(rune('a'+i/26)), App: "toy",
			Submit: float64(i * 100), Age: float64(600 + 50*i), Restarts: i % 3, Attained: float64((n - i) * 1000),
			Limits:      models.Limits{InitBatch: 64, MaxBatch: 4096, MinLocal: 16, MaxLocal: 256},
			MaxSeenGPUs: 1 + rng.IntN(8),
			Grad:        models.GradStats{Sqr: 1, Var: 5 + 200*rng.Float64()},
		}
		if i%5 != 4 {
			j.Params = &p
		}
		if i%3 == 0 {
			a := make([]int, nodes)
			a[i%nodes] = 1
			j.Alloc = a
		}
		jobs[i] = j
	}
	return jobs
}

// TestSearchFindsOptimumOnSmallInstances enumerates every allocation of a
// 2-node × 4-GPU cluster for up to 4 jobs and checks that the search
// reaches the best feasible fitness.
func TestSearchFindsOptimumOnSmallInstances(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	for _, tc := range []struct {
		jobs int
		p    float64
		seed uint64
	}{{1, -1, 1}, {2, -1, 2}, {3, -1, 3}, {4, -1, 4}, {4, 1, 5}, {3, -10, 6}, {4, 0, 7}} {
		jobs := testJobs(tc.jobs, c.Nodes, tc.seed)
		opt := DefaultOptions()
		opt.P = tc.p
		opt.Seed = tc.seed
		pr, _ := sortedProblem(c, jobs, opt)
		best := math.Inf(-1)
		state := make([]int, tc.jobs*c.Nodes)
		var enumerate func(pos int)
		enumerate = func(pos int) {
			if pos == len(state) {
				st := fromDense(state, tc.jobs, c.Nodes)
				if pr.feasible(&st) {
					best = math.Max(best, pr.fitness(&st))
				}
				return
			}
			for v := 0; v <= c.GPUsPerNode; v++ {
				state[pos] = v
				enumerate(pos + 1)
			}
		}
		enumerate(0)
		pol := New(opt)
		dec := pol.Schedule(0, c, jobs)
		if math.Abs(pol.PolicyStats().Fitness-best) > 1e-9*math.Abs(best) {
			t.Errorf("%d jobs, p=%v: search fitness %.12g, optimum %.12g", tc.jobs, tc.p, pol.PolicyStats().Fitness, best)
		}
		// The decision is the state the fitness was computed for.
		chosenDense := make([]int, tc.jobs*c.Nodes)
		for k, i := range order(jobs) {
			copy(chosenDense[k*c.Nodes:], dec.Alloc[i])
		}
		chosen := fromDense(chosenDense, tc.jobs, c.Nodes)
		if !pr.feasible(&chosen) || math.Abs(pr.fitness(&chosen)-pol.PolicyStats().Fitness) > 1e-12 {
			t.Errorf("decision infeasible or fitness mismatch: %v", dec.Alloc)
		}
	}
}

func TestDecisionsFeasibleAndDeterministic(t *testing.T) {
	c := policies.Cluster{Nodes: 16, GPUsPerNode: 4}
	jobs := testJobs(30, c.Nodes, 42)
	opt := DefaultOptions()
	opt.Seed = 9
	d1 := New(opt).Schedule(0, c, jobs)
	d2 := New(opt).Schedule(0, c, jobs)
	if !reflect.DeepEqual(d1, d2) {
		t.Fatal("same seed, different decisions")
	}
	used := make([]int, c.Nodes)
	multi := make([]int, c.Nodes)
	for i, a := range d1.Alloc {
		k := policies.Sum(a)
		if k > maxGPUs(&jobs[i], opt, c.TotalGPUs()) {
			t.Errorf("job %d got %d GPUs, max %d", i, k, maxGPUs(&jobs[i], opt, c.TotalGPUs()))
		}
		for n, v := range a {
			used[n] += v
			if policies.NodesUsed(a) > 1 && v > 0 {
				multi[n]++
			}
		}
	}
	for n := range used {
		if used[n] > c.GPUsPerNode || multi[n] > 1 {
			t.Errorf("node %d: %d GPUs, %d multi-node jobs", n, used[n], multi[n])
		}
	}
	// The chosen allocation is at least as fit as keeping the current one.
	pol := New(opt)
	pol.Schedule(0, c, jobs)
	pr, _ := sortedProblem(c, jobs, opt)
	if base := pr.fitness(&pr.base); pol.PolicyStats().Fitness < base {
		t.Errorf("fitness %v below the current allocation's %v", pol.PolicyStats().Fitness, base)
	}
}

func TestFitnessClosedForm(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	// Two jobs without models: speedup = GPUs / fair share (4 GPUs each).
	jobs := []policies.Job{
		{Name: "a", Age: 90, Restarts: 0, Limits: models.Limits{InitBatch: 8, MaxBatch: 512, MinLocal: 4, MaxLocal: 8}},
		{Name: "b", Age: 30, Restarts: 0, Attained: 1, Limits: models.Limits{InitBatch: 8, MaxBatch: 512, MinLocal: 4, MaxLocal: 8}},
	}
	opt := DefaultOptions()
	pr := newProblem(c, jobs, len(jobs), opt, nil)
	// a: 2 GPUs on node 0 (changed, factor 90/120), b: 4 GPUs on node 1 (factor 30/60).
	state := fromDense([]int{2, 0, 0, 4}, 2, 2)
	sa := 2.0 / 4 * 0.25 * (90.0 / 120)
	sb := 4.0 / 4 * 0.25 * (30.0 / 60)
	want := 1 / ((1/(sa+1e-3) + 1/(sb+1e-3)) / 2)
	if got := pr.fitness(&state); math.Abs(got-want) > 1e-12 {
		t.Errorf("fitness %v, want %v", got, want)
	}
	opt.P = 1
	pr = newProblem(c, jobs, len(jobs), opt, nil)
	if got, want := pr.fitness(&state), (sa+sb)/2+1e-3; math.Abs(got-want) > 1e-12 {
		t.Errorf("p=1 fitness %v, want %v", got, want)
	}
}

func BenchmarkPolluxRound(b *testing.B) {
	c := policies.Cluster{Nodes: 16, GPUsPerNode: 4}
	jobs := testJobs(30, c.Nodes, 7)
	pol := New(DefaultOptions())
	pol.Schedule(0, c, jobs) // warm: carry a population over, as in a run
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pol.Schedule(float64(60*i), c, jobs)
	}
}

// On a cluster so large that the fair share (all GPUs / jobs) exceeds what
// a job's batch limits allow, its goodput there is 0; the speedup's base
// must then fall back to what the job can use, or the job's speedup is 0
// everywhere and it is never scheduled.
func TestFairShareBeyondTheJobsLimits(t *testing.T) {
	c := policies.Cluster{Nodes: 128, GPUsPerNode: 4} // fair share 512 GPUs
	jobs := testJobs(1, c.Nodes, 1)
	jobs[0].Alloc = nil // MaxBatch 4096 / MinLocal 16: at most 256 GPUs
	if jobs[0].Params == nil {
		t.Fatal("the test job needs a fitted model")
	}
	dec := New(DefaultOptions()).Schedule(0, c, jobs)
	if policies.Sum(dec.Alloc[0]) == 0 {
		t.Fatal("the only job got no GPUs on an empty 512-GPU cluster")
	}
}
