package pollux

import (
	"fmt"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// waitingJobs is n test jobs of which those in holding hold one GPU each,
// on nodes 0, 1, ... in turn, and the rest wait.
func waitingJobs(n int, c policies.Cluster, seed uint64, holding ...int) []policies.Job {
	jobs := testJobs(n, c.Nodes, seed)
	for i := range jobs {
		jobs[i].Alloc = nil
	}
	for k, i := range holding {
		jobs[i].Alloc = make([]int, c.Nodes)
		jobs[i].Alloc[k%c.Nodes] = 1
	}
	return jobs
}

// With waiting_per_gpu a round considers the jobs holding GPUs and the
// first waiting ones in input order, ceil(waiting_per_gpu × GPUs) of them:
// no other job gets a GPU, and those first ones, which fit, all start (an
// unscheduled job weighs 1/ε in the power mean). With 0 every job is
// considered and the free GPUs go to more waiting jobs.
func TestWaitingWindow(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	for seed := uint64(1); seed <= 5; seed++ {
		jobs := waitingJobs(30, c, seed, 5, 20)
		opt := DefaultOptions()
		opt.WaitingPerGPU = 0.25 // 2 of the 8 GPUs' worth
		dec := New(opt).Schedule(0, c, jobs)
		for i, a := range dec.Alloc {
			if policies.Sum(a) > 0 && i != 0 && i != 1 && i != 5 && i != 20 {
				t.Errorf("seed %d: job %d, outside the window, got %v", seed, i, a)
			}
		}
		for _, i := range []int{0, 1} {
			if policies.Sum(dec.Alloc[i]) == 0 {
				t.Errorf("seed %d: job %d, first in the window, did not start", seed, i)
			}
		}
		opt.WaitingPerGPU = 0
		dec = New(opt).Schedule(0, c, jobs)
		started := 0
		for _, a := range dec.Alloc {
			if policies.Sum(a) > 0 {
				started++
			}
		}
		if started != 8 {
			t.Errorf("seed %d, every job considered: %d jobs hold GPUs, want all 8 GPUs used by different jobs", seed, started)
		}
	}
}

// Under overload the window admits in input (submission) order: while new
// jobs keep arriving faster than GPUs free up, every job waiting at the
// start gets GPUs before any later arrival, preempted or not — no job
// starves behind newer ones.
func TestWaitingWindowAdmitsInOrder(t *testing.T) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 4}
	opt := DefaultOptions()
	p := New(opt)
	pool := testJobs(400, c.Nodes, 9)
	for i := range pool {
		pool[i].Alloc = nil
		pool[i].Name = fmt.Sprintf("j%03d", i)
		pool[i].Submit = float64(i)
	}
	jobs, next := append([]policies.Job(nil), pool[:40]...), 40
	started := map[string]int{} // job name → round it first got GPUs
	for round := 1; round <= 60; round++ {
		dec := p.Schedule(float64(60*round), c, jobs)
		var keep []policies.Job
		for i, j := range jobs {
			if policies.Sum(dec.Alloc[i]) > 0 {
				if _, ok := started[j.Name]; !ok {
					started[j.Name] = round
				}
				if round%2 == 0 {
					continue // finishes
				}
				j.Alloc = dec.Alloc[i]
			} else {
				j.Alloc = nil // preempted, if it held GPUs
			}
			keep = append(keep, j)
		}
		jobs = append(keep, pool[next:next+5]...) // 5 arrivals a round
		next += 5
	}
	last := 0
	for i := range 40 {
		r, ok := started[pool[i].Name]
		if !ok {
			t.Fatalf("job %d, waiting from the start, never started", i)
		}
		last = max(last, r)
	}
	for i := 40; i < next; i++ {
		if r, ok := started[pool[i].Name]; ok && r < last {
			t.Errorf("job %d, arrived later, started in round %d, before the first 40 had all started (round %d)", i, r, last)
		}
	}
}
