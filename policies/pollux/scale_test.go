package pollux

import (
	"fmt"
	"math/rand/v2"
	"testing"

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
