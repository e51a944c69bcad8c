package pollux

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/polluxsim/polluxsim/models"
	"github.com/polluxsim/polluxsim/policies"
)

// BenchmarkPolluxRoundScale measures one scheduling round on large
// clusters with many active jobs (the search carries its population over
// from a previous round, as in a run).
func BenchmarkPolluxRoundScale(b *testing.B) {
	for _, sz := range []struct{ nodes, jobs int }{{16, 30}, {64, 120}, {256, 500}, {1024, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d/jobs=%d", sz.nodes, sz.jobs), func(b *testing.B) {
			c := policies.Cluster{Nodes: sz.nodes, GPUsPerNode: 4}
			jobs := testJobs(sz.jobs, c.Nodes, 11)
			pol := New(DefaultOptions())
			pol.Schedule(0, c, jobs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pol.Schedule(float64(60*(i+1)), c, jobs)
			}
			b.ReportMetric(pol.PolicyStats().Fitness, "fitness")
		})
	}
}

// BenchmarkGeneticAlgorithm measures the genetic algorithm alone on one
// worker (no local search, no early stop), reporting its cost per job row
// of a child (mutation and repair): the search's inner loop.
func BenchmarkGeneticAlgorithm(b *testing.B) {
	for _, sz := range []struct{ nodes, jobs int }{{16, 30}, {100, 60}, {100, 200}} {
		b.Run(fmt.Sprintf("nodes=%d/jobs=%d", sz.nodes, sz.jobs), func(b *testing.B) {
			c := policies.Cluster{Nodes: sz.nodes, GPUsPerNode: 4}
			jobs := testJobs(sz.jobs, c.Nodes, 11)
			opt := DefaultOptions()
			opt.Stall, opt.MaxRowsPerRound, opt.Generations = 0, 0, 10
			pr := newProblem(c, jobs, len(jobs), opt, nil)
			s := &searcher{pr: pr, rng: rand.New(rand.NewPCG(1, 2)), opt: opt, workers: []*worker{newWorker(c.Nodes)}}
			// Start from a population evolved once, as a round starts
			// from the last round's.
			var warm []state
			base := s.get()
			base.copyFrom(&pr.base)
			for _, ind := range s.run([]*state{base}) {
				warm = append(warm, *ind.st)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				initial := make([]*state, len(warm))
				for k := range warm {
					initial[k] = s.get()
					initial[k].copyFrom(&warm[k])
				}
				for _, ind := range s.run(initial) {
					s.put(ind.st)
				}
			}
			rows := float64(b.N) * float64(opt.Generations*2*((opt.Population+1)/2)*pr.nJobs)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
		})
	}
}

// BenchmarkChurnWithFloors measures how often Pollux re-places running
// jobs while others arrive (docs/scale.md, "Why it restarts so often"):
// 41 running multi-node jobs hold whole nodes of a 1,000 × 8-GPU cluster
// and a new 8-GPU job arrives each round; it reports the running jobs'
// moves per round (a move at the same size only lowers the moved job's
// value), with every job's memory floor at 1 GPU and at 8, as LLM jobs'.
func BenchmarkChurnWithFloors(b *testing.B) {
	for _, floor := range []int{1, 8} {
		b.Run(fmt.Sprintf("floor=%d", floor), func(b *testing.B) {
			moves, rounds := 0, 0
			for it := 0; it < b.N; it++ {
				m, r := churn(floor, 30)
				moves, rounds = moves+m, rounds+r
			}
			b.ReportMetric(float64(moves)/float64(rounds), "moves/round")
		})
	}
}

// churn runs the scenario of BenchmarkChurnWithFloors for the given
// rounds and returns the running jobs' moves and the rounds.
func churn(floor, rounds int) (moves, n int) {
	const nodes = 1000
	c := policies.Cluster{Nodes: nodes, GPUsPerNode: 8}
	big := models.Params{AlphaC: 0.1, BetaC: 0.05, AlphaR: 0.01, BetaR: 0.001, AlphaN: 0.01, BetaN: 0.0001, Gamma: 1.5}
	small := models.Params{AlphaC: 0.02, BetaC: 0.01, AlphaR: 0.01, BetaR: 0.001, AlphaN: 0.05, BetaN: 0.001, Gamma: 1.5}
	place := func(first, count int) []int {
		a := make([]int, nodes)
		for n := first; n < first+count; n++ {
			a[n] = 8
		}
		return a
	}
	jobs := []policies.Job{{Name: "big", Age: 5 * 3600, Restarts: 50, Attained: 1e9, MinGPUs: max(floor, 15),
		Request: policies.Request{GPUs: 256}, Limits: models.Limits{InitBatch: 8, MaxBatch: 8192, MinLocal: 1, MaxLocal: 16},
		MaxSeenGPUs: 256, Params: &big, Grad: models.GradStats{Sqr: 1, Var: 1e5}, Alloc: place(0, 32)}}
	for i := 0; i < 40; i++ {
		jobs = append(jobs, policies.Job{Name: fmt.Sprint("s", i), Submit: float64(i), Age: 3600, Restarts: 1, Attained: float64(1e5 + i),
			MinGPUs: floor, Request: policies.Request{GPUs: 64}, Limits: models.Limits{InitBatch: 64, MaxBatch: 4096, MinLocal: 1, MaxLocal: 16},
			MaxSeenGPUs: 64, Params: &small, Grad: models.GradStats{Sqr: 1, Var: 1000}, Alloc: place(100+8*i, 8)})
	}
	p := New(DefaultOptions())
	for round := 0; round < rounds; round++ {
		jobs = append(jobs, policies.Job{Name: fmt.Sprint("n", round), Submit: 1e4 + float64(round), Age: 30, MinGPUs: floor,
			Request: policies.Request{GPUs: 8}, Limits: models.Limits{InitBatch: 64, MaxBatch: 512, MinLocal: 1, MaxLocal: 16}})
		dec := p.Schedule(float64(60*round), c, jobs)
		for i := range jobs {
			if policies.Equal(dec.Alloc[i], jobs[i].Alloc) {
				jobs[i].Age += 60
				continue
			}
			if policies.Sum(jobs[i].Alloc) > 0 {
				moves++
			}
			jobs[i].Alloc = dec.Alloc[i]
			if policies.Sum(dec.Alloc[i]) > 0 {
				jobs[i].Restarts++
			}
			jobs[i].Age += 60
		}
	}
	return moves, rounds
}
