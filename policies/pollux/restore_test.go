package pollux

import (
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/policies"
)

// TestRestoreKeepsFeasibleAndNeverLowers: on random small clusters with
// jobs with and without memory floors, restoring the current allocation
// of jobs with a floor in a random feasible state (a repaired random one)
// keeps it feasible, never lowers its fitness, and gives back the state's
// own fitness; a job without a floor keeps its row; and a job with a floor
// whose current nodes are free in the state gets them back when it is
// worth no less there.
func TestRestoreKeepsFeasibleAndNeverLowers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	restored := 0
	for trial := 0; trial < 300; trial++ {
		c := policies.Cluster{Nodes: 2 + rng.IntN(5), GPUsPerNode: 1 + rng.IntN(4)}
		jobs := testJobs(2+rng.IntN(6), c.Nodes, uint64(trial))
		// Current allocations: a feasible random one.
		used := make([]int, c.Nodes)
		for i := range jobs {
			jobs[i].MinGPUs = rng.IntN(3) // 0: no floor
			jobs[i].Alloc = nil
			a := make([]int, c.Nodes)
			for n := range a {
				if v := rng.IntN(c.GPUsPerNode + 1); rng.IntN(3) == 0 && used[n]+v <= c.GPUsPerNode {
					a[n], used[n] = v, used[n]+v
				}
			}
			if policies.Sum(a) >= max(1, jobs[i].MinGPUs) {
				jobs[i].Alloc = a
				jobs[i].MaxSeenGPUs = max(jobs[i].MaxSeenGPUs, policies.Sum(a))
			}
		}
		opt := DefaultOptions()
		opt.NoInterferenceAvoidance = rng.IntN(2) == 0
		pr, _ := sortedProblem(c, jobs, opt)
		if !pr.feasible(&pr.base) {
			continue // a current allocation over the caps: not this test's case
		}
		// A random state, repaired.
		dense := make([]int, len(jobs)*c.Nodes)
		for x := range dense {
			if rng.IntN(3) == 0 {
				dense[x] = rng.IntN(c.GPUsPerNode + 1)
			}
		}
		in := fromDense(dense, len(jobs), c.Nodes)
		w := newWorker(c.Nodes)
		w.reseed(uint64(trial), 1)
		var st state
		fit, _ := w.repair(pr, &in, &st)
		got, gotFit := pr.restore(&st, fit)
		if !pr.feasible(got) {
			t.Fatalf("trial %d: restored state infeasible", trial)
		}
		if gotFit < fit-1e-12 || gotFit != pr.fitness(got) {
			t.Fatalf("trial %d: fitness %v -> %v (recomputed %v)", trial, fit, gotFit, pr.fitness(got))
		}
		for i := 0; i < pr.nJobs; i++ {
			r, base := got.row(i), pr.base.row(i)
			if pr.minGPUs[i] == 0 && !equalRows(r, st.row(i)) {
				t.Fatalf("trial %d: job %d without a floor changed", trial, i)
			}
			if !equalRows(r, st.row(i)) {
				restored++
				if !equalRows(r, base) {
					t.Fatalf("trial %d: job %d got a row that is neither its own nor its current one", trial, i)
				}
			}
		}
	}
	if restored == 0 {
		t.Fatal("no row was ever restored")
	}
	t.Logf("%d rows restored", restored)
}
