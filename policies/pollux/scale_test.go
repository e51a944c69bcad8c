package pollux

import (
	"fmt"
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
			b.ReportMetric(pol.LastFitness(), "fitness")
		})
	}
}
