package pollux

import (
	"math"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// settledProblem is a round on 2 nodes × 2 GPUs with five jobs, the first
// four holding one GPU each (nodes 0, 1, 0, 1), among active ones.
func settledProblem(seed uint64, p float64, active int) (*problem, policies.Cluster, Options) {
	c := policies.Cluster{Nodes: 2, GPUsPerNode: 2}
	jobs := waitingJobs(5, c, seed, 0, 1, 2, 3)
	opt := DefaultOptions()
	opt.P = p
	sorted := make([]policies.Job, len(jobs))
	for k, i := range order(jobs) {
		sorted[k] = jobs[i]
	}
	return newProblem(c, sorted, active, opt, nil), c, opt
}

// When settled says the current allocation is the optimum, no other
// feasible allocation of the 2 × 2 cluster among the five jobs
// (enumerated) is fitter, and for moderate exponents every other one is
// less fit. (With p = −10 a job without GPUs weighs 10²⁴ times one on a
// GPU, and the others' differences vanish in floating point.) It says so
// on most of these random models, for power means below 1, and not when
// a GPU is free or p is 1 (where giving a job a second GPU can tie).
func TestSettledIsTheUniqueOptimum(t *testing.T) {
	yes := 0
	for seed := uint64(1); seed <= 12; seed++ {
		for _, p := range []float64{-1, -10, 0, 0.5} {
			pr, c, opt := settledProblem(seed, p, 9)
			if !settled(pr, c, opt) {
				continue
			}
			yes++
			base := pr.fitness(&pr.base)
			state := make([]int, pr.nJobs*c.Nodes)
			var enumerate func(pos int)
			enumerate = func(pos int) {
				if pos == len(state) {
					st := fromDense(state, pr.nJobs, c.Nodes)
					if !pr.feasible(&st) || equalStates(&st, &pr.base) {
						return
					}
					if f := pr.fitness(&st); f > base || (f == base && p > -2) {
						t.Errorf("seed %d, p=%v: allocation %v has fitness %v, not below the settled one's %v", seed, p, state, f, base)
					}
					return
				}
				for v := 0; v <= c.GPUsPerNode; v++ {
					state[pos] = v
					enumerate(pos + 1)
				}
			}
			enumerate(0)
		}
	}
	if yes < 24 {
		t.Errorf("settled held in only %d of 48 cases", yes)
	}
	for _, tc := range []struct {
		name   string
		p      float64
		active int
		rows   [][]entry // the current allocation, if not the four one-GPU jobs
	}{
		{"p = 1", 1, 9, nil},
		{"a free GPU", -1, 9, [][]entry{{{0, 1}}, {{1, 1}}, {{0, 1}}}},
		{"a job on two GPUs", -1, 9, [][]entry{{{0, 2}}, {{1, 1}}, {{1, 1}}}},
	} {
		pr, c, opt := settledProblem(1, tc.p, tc.active)
		if tc.rows != nil {
			pr.base.begin()
			for i := 0; i < pr.nJobs; i++ {
				if i < len(tc.rows) {
					pr.base.ents = append(pr.base.ents, tc.rows[i]...)
				}
				pr.base.endRow()
			}
		}
		if settled(pr, c, opt) {
			t.Errorf("%s: settled", tc.name)
		}
	}
	// A job whose speedup grows faster than its GPUs (a goodput of k² on
	// k GPUs) could be worth two GPUs: not settled.
	pr, c, opt := settledProblem(1, -1, 9)
	if !settled(pr, c, opt) {
		t.Fatal("seed 1 is not settled")
	}
	pr.maxGPUs[4] = 2
	pr.speed[4] = models.NewSpeedup(&models.Model{}, 1, 1, func(n, k int) float64 { return float64(k * k) })
	if settled(pr, c, opt) {
		t.Error("a superlinear job: settled")
	}
}

func equalStates(a, b *state) bool {
	if len(a.off) != len(b.off) {
		return false
	}
	for i := 0; i+1 < len(a.off); i++ {
		if !equalRows(a.row(i), b.row(i)) {
			return false
		}
	}
	return true
}

// A settled round keeps the allocation without searching, and the search
// it skips would have kept it too.
func TestSkipSettledKeepsWhatTheSearchWould(t *testing.T) {
	c := policies.Cluster{Nodes: 4, GPUsPerNode: 4}
	holders := make([]int, 16)
	for i := range holders {
		holders[i] = 2 * i // every other job holds a GPU
	}
	for seed := uint64(1); seed <= 6; seed++ {
		jobs := waitingJobs(40, c, seed, holders...)
		for i := range jobs {
			jobs[i].Age = math.Max(jobs[i].Age, 3600)
		}
		opt := DefaultOptions()
		p := New(opt)
		dec := p.Schedule(0, c, jobs)
		opt.SkipSettled = false
		q := New(opt)
		searched := q.Schedule(0, c, jobs)
		if p.Skipped() != 1 {
			t.Errorf("seed %d: the round was not settled", seed)
		}
		for i := range jobs {
			if !policies.Equal(dec.Alloc[i], jobs[i].Alloc) || !policies.Equal(searched.Alloc[i], jobs[i].Alloc) {
				t.Errorf("seed %d: job %d: settled %v, searched %v, held %v", seed, i, dec.Alloc[i], searched.Alloc[i], jobs[i].Alloc)
			}
		}
		if math.Abs(p.PolicyStats().Fitness-q.PolicyStats().Fitness) > 1e-12*q.PolicyStats().Fitness {
			t.Errorf("seed %d: fitness %v settled, %v searched", seed, p.PolicyStats().Fitness, q.PolicyStats().Fitness)
		}
	}
}
