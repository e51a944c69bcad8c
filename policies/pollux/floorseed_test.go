package pollux

import (
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// TestFloorSeed on random rounds (2-16 nodes of 8 GPUs, jobs holding one
// GPU each, waiting jobs with floors of 2-40): the seed is feasible (the
// search may start from it), keeps every allocated job's row, gives each
// waiting job with a floor either nothing or at least its floor, and
// gives one to the first such job whenever its floor fits in what is
// free; a round without such a job has no seed.
func TestFloorSeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 4))
	seeded := 0
	for inst := 0; inst < 500; inst++ {
		c := policies.Cluster{Nodes: 2 + rng.IntN(15), GPUsPerNode: 8}
		jobs := testJobs(1+rng.IntN(10), c.Nodes, rng.Uint64())
		floors := 0
		for i := range jobs {
			if jobs[i].Alloc == nil && rng.IntN(2) == 0 {
				jobs[i].MinGPUs = 2 + rng.IntN(39)
				floors++
			}
		}
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		sorted := make([]policies.Job, len(jobs))
		for k, i := range order(jobs) {
			sorted[k] = jobs[i]
		}
		pr := newProblem(c, sorted, len(sorted), opt, nil)
		seed := pr.floorSeed(c, &searcher{pr: pr})
		if floors == 0 {
			if seed != nil {
				t.Fatalf("instance %d: a seed without a waiting job with a floor", inst)
			}
			continue
		}
		if seed == nil {
			continue
		}
		seeded++
		if !pr.feasible(seed) {
			t.Fatalf("instance %d: infeasible seed %v", inst, seed)
		}
		first := true
		freeGPUs := c.TotalGPUs()
		for i := 0; i < pr.nJobs; i++ {
			freeGPUs -= rowGPUs(pr.base.row(i))
		}
		for i := 0; i < pr.nJobs; i++ {
			r, base := seed.row(i), pr.base.row(i)
			if len(base) > 0 || pr.minGPUs[i] <= 1 {
				if !equalRows(r, base) {
					t.Fatalf("instance %d: job %d moved: %v -> %v", inst, i, base, r)
				}
				continue
			}
			if k := rowGPUs(r); k > 0 && k < pr.minGPUs[i] {
				t.Fatalf("instance %d: job %d given %d GPUs, below its floor %d", inst, i, k, pr.minGPUs[i])
			}
			if first && pr.minGPUs[i] <= freeGPUs && pr.minGPUs[i] <= c.GPUsPerNode && rowGPUs(r) == 0 {
				t.Fatalf("instance %d: the first waiting job's floor %d fits a node, but it got nothing", inst, pr.minGPUs[i])
			}
			first = false
		}
	}
	if seeded < 100 {
		t.Errorf("only %d of 500 rounds seeded: the test shows little", seeded)
	}
}
